// The guide's redaction, against a real draw.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createRestClient, Event_Type } from "@samba-adjudicator/client";
import { applyForEachSeat } from "../examples/redact.js";
import { startServer, type Server } from "./server.js";

let server: Server;
before(async () => {
  server = await startServer();
});
after(() => server?.stop());

test("after a draw each seat sees its own hand and only the drawer sees the drawn cards", async () => {
  const client = createRestClient({ baseUrl: server.restUrl });
  const { snapshot } = await client.deal({ players: 4, seed: "redact" });
  const drawer = snapshot!.turn!.seat!;
  const { actions } = await client.listLegalActions({ snapshot, seat: drawer });
  const draw = actions.find((a) => a.kind.case === "drawStock")!;
  const { answer, messages } = await applyForEachSeat(client, snapshot!, draw);
  const drawn = answer.events.find((e) => e.type === Event_Type.CARDS_DRAWN)!;
  assert.ok(drawn.cards.length > 0);
  assert.deepEqual(messages.map((m) => m.seat), [0, 1, 2, 3]);
  for (const message of messages) {
    const seen = message.events.find((e) => e.type === Event_Type.CARDS_DRAWN)!;
    assert.deepEqual(seen.cards, message.seat === drawer ? drawn.cards : []);
    assert.equal(seen.cardCount, drawn.cards.length);
    message.snapshot.seats.forEach((s, i) => {
      assert.equal(s.handHidden, i !== message.seat);
      assert.equal(s.hand.length === 0, i !== message.seat);
    });
    assert.deepEqual(message.snapshot.stock, []);
  }
});
