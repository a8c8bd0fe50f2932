// The client against a real server, over both transports.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  AdjudicatorError,
  ActionSchema,
  Adjudicator,
  DealResponseSchema,
  Turn_Phase,
  createRestClient,
  iterLegalActions,
  toJson,
  type AdjudicatorClient,
  type ClientOptions,
  type Snapshot,
} from "@samba-adjudicator/client";
import { createGrpcClient, type GrpcAdjudicatorClient } from "@samba-adjudicator/client/grpc";
import { startServer, type Server } from "./server.js";

let server: Server;
let slow: Server;
const grpcClients: GrpcAdjudicatorClient[] = [];

before(async () => {
  [server, slow] = await Promise.all([startServer(), startServer({ SAMBA_TEST_DELAY_SECONDS: "3" })]);
});
after(async () => {
  for (const c of grpcClients) c.close();
  await Promise.all([server?.stop(), slow?.stop()]);
});

const transports: Record<string, (s: Server, options?: ClientOptions) => AdjudicatorClient> = {
  rest: (s, options = {}) => createRestClient({ ...options, baseUrl: s.restUrl }),
  grpc: (s, options = {}) => {
    const c = createGrpcClient({ ...options, baseUrl: s.grpcUrl });
    grpcClients.push(c);
    return c;
  },
};

async function rejection(promise: Promise<unknown>): Promise<AdjudicatorError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof AdjudicatorError, `not an AdjudicatorError: ${err}`);
    return err;
  }
  assert.fail("the call succeeded");
}

async function dealt(client: AdjudicatorClient): Promise<Snapshot> {
  const { snapshot } = await client.deal({ players: 4, seed: "typescript-client" });
  return snapshot!;
}

for (const [name, make] of Object.entries(transports)) {
  describe(`${name} transport`, () => {
    test("deal, list, validate: listed actions are legal, out of turn is not", async () => {
      const client = make(server);
      const snapshot = await dealt(client);
      assert.equal(snapshot.turn?.phase, Turn_Phase.DRAW);
      const listed = await client.listLegalActions({ snapshot });
      const first = listed.actions[0]!;
      const legal = await client.validateAction({ snapshot, action: first });
      assert.deepEqual([legal.legal, legal.violations], [true, []]);
      const refused = await client.validateAction({ snapshot, action: { ...first, seat: (first.seat! + 1) % 4 } });
      assert.equal(refused.legal, false);
      assert.equal(refused.violations[0]?.code, "NOT_YOUR_TURN");
    });

    test("locale: violations, errors and parameter descriptions in its language", async () => {
      const spanish = make(server, { locale: "es-AR" });
      const snapshot = await dealt(spanish);
      const { actions } = await spanish.listLegalActions({ snapshot });
      const outOfTurn = { snapshot, action: { ...actions[0]!, seat: (actions[0]!.seat! + 1) % 4 } };
      const [said, plain] = await Promise.all([
        spanish.validateAction(outOfTurn),
        make(server).validateAction(outOfTurn),
      ]);
      assert.equal(said.violations[0]?.code, "NOT_YOUR_TURN");
      assert.match(said.violations[0]!.message, /^es el turno del asiento \d, no del asiento \d$/);
      assert.match(plain.violations[0]!.message, /^it is seat \d's turn, not seat \d's$/);
      // machine fields are the same in every language
      assert.deepEqual(
        [said.violations[0]!.rule, said.violations[0]!.details],
        [plain.violations[0]!.rule, plain.violations[0]!.details],
      );
      const err = await rejection(spanish.deal({ players: 4, seed: "x", dealer: 9 }));
      assert.equal(err.message, "INVALID_ARGUMENT INVALID_REQUEST: dealer: dealer debe ser un asiento de 0 a 3, no 9");
      assert.equal(err.fieldViolations[0]?.description, "dealer debe ser un asiento de 0 a 3, no 9");
      const ruleset = await spanish.getRuleset({ profile: "classic" });
      const wildRule = ruleset.parameterDescriptions.find((d) => d.field === "groupWildRule");
      assert.deepEqual([wildRule?.description, wildRule?.rule], [
        "Cuántos comodines puede llevar una combinación según sus cartas naturales.",
        "docs/rules.md#wild-rules",
      ]);
    });

    test("locale per call: one client serves players of different languages", async () => {
      const client = make(server); // no client locale
      const snapshot = await dealt(client);
      const { actions } = await client.listLegalActions({ snapshot });
      const outOfTurn = { snapshot, action: { ...actions[0]!, seat: (actions[0]!.seat! + 1) % 4 } };
      const [spanish, plain] = await Promise.all([
        client.validateAction(outOfTurn, { locale: "es" }),
        client.validateAction(outOfTurn),
      ]);
      assert.match(spanish.violations[0]!.message, /^es el turno del asiento/);
      assert.match(plain.violations[0]!.message, /^it is seat/);
      const swedishClient = make(server, { locale: "sv" });
      const overridden = await swedishClient.validateAction(outOfTurn, { locale: "es" });
      assert.match(overridden.violations[0]!.message, /^es el turno del asiento/);
    });

    test("iterLegalActions fetches every page", async () => {
      const client = make(server);
      const snapshot = await dealt(client);
      const draw = (await client.listLegalActions({ snapshot })).actions[0]!;
      const drawn = await client.applyAction({ snapshot, action: draw });
      const whole = await client.listLegalActions({ snapshot: drawn.snapshot, pageSize: 1000 });
      const paged = [];
      for await (const action of iterLegalActions(client, { snapshot: drawn.snapshot, pageSize: 3 })) paged.push(action);
      assert.ok(whole.actions.length > 3);
      assert.deepEqual(paged.map((a) => toJson(ActionSchema, a)), whole.actions.map((a) => toJson(ActionSchema, a)));
    });

    test("a profile with variations reaches GetRuleset intact", async () => {
      const ruleset = await make(server).getRuleset({ profile: "classic+open" });
      assert.equal(ruleset.profile, "classic+open");
    });

    test("invalid argument: status, reason, every field violation, the request id", async () => {
      const err = await rejection(
        make(server).checkMeld({ cards: ["7H", "ZZ", "7C", "XX"] }, { requestId: `ts-${name}` }),
      );
      assert.equal(err.status, "INVALID_ARGUMENT");
      assert.equal(err.grpcCode, 3);
      assert.equal(err.reason, "INVALID_REQUEST");
      assert.equal(err.domain, "samba.v1");
      assert.equal(err.requestId, `ts-${name}`);
      assert.deepEqual(
        err.fieldViolations.map((v) => [v.field, v.reason]),
        [
          ["cards[1]", "UNKNOWN_CARD_CODE"],
          ["cards[3]", "UNKNOWN_CARD_CODE"],
        ],
      );
      assert.ok(err.fieldViolations.every((v) => v.description.length > 0));
      if (name === "rest") assert.equal(err.httpStatus, 400);
    });

    test("a generated request id is sent when none is given", async () => {
      const err = await rejection(make(server).getRuleset({ profile: "nonesuch" }));
      assert.equal(err.status, "NOT_FOUND");
      assert.equal(err.reason, "UNKNOWN_PROFILE");
      assert.match(err.requestId, /^[0-9a-f]{32}$/);
    });

    test("a deadline ends the call with DEADLINE_EXCEEDED", async () => {
      const client = make(slow);
      const err = await rejection(client.listRulesets({}, { timeoutMs: 200, requestId: "late" }));
      assert.equal(err.status, "DEADLINE_EXCEEDED");
      assert.equal(err.reason, "DEADLINE_EXCEEDED");
      assert.equal(err.requestId, "late");
    });

    test("the client's default timeout applies", async () => {
      const client =
        name === "rest"
          ? createRestClient({ baseUrl: slow.restUrl, timeoutMs: 200 })
          : createGrpcClient({ baseUrl: slow.grpcUrl, timeoutMs: 200 });
      if ("close" in client) grpcClients.push(client as GrpcAdjudicatorClient);
      assert.equal((await rejection(client.listRulesets({}))).status, "DEADLINE_EXCEEDED");
    });

    test("an abort signal cancels the call", async () => {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 100);
      const err = await rejection(make(slow).listRulesets({}, { signal: controller.signal }));
      assert.equal(err.status, "CANCELLED");
    });
  });
}

describe("both transports", () => {
  test("every RPC is a method, and both transports give the same answers", async () => {
    const rest = transports["rest"]!(server);
    const grpc = transports["grpc"]!(server);
    assert.deepEqual(
      Object.keys(rest).sort(),
      Adjudicator.methods.map((m) => m.localName).sort(),
    );
    const snapshot = await dealt(rest);
    const { actions } = await rest.listLegalActions({ snapshot, pageSize: 3 });
    const first = actions[0]!;
    const requests: Record<string, object> = {
      listRulesets: {},
      getRuleset: { profile: "classic" },
      deal: { players: 4, seed: "parity", dealer: 1 },
      checkMeld: { cards: ["7H", "7D", "7C"] },
      validateAction: { snapshot, action: first },
      applyAction: { snapshot, action: first },
      listLegalActions: { snapshot, pageSize: 5 },
      scoreDeal: { snapshot, provisional: true },
      getPlayerView: { snapshot, seat: 0 },
      replayDeal: { snapshot, actions: [first] },
      // level 3: SuggestActionRequest.Level.STRONG
      suggestAction: { snapshot, seat: first.seat, level: 3, seed: "parity", budgetMs: 20 },
      verifyDeal: { deal: snapshot, seed: "typescript-client" },
    };
    for (const method of Adjudicator.methods) {
      const call = (c: AdjudicatorClient) =>
        (c[method.localName as keyof AdjudicatorClient] as (r: object) => Promise<never>)(requests[method.localName]!);
      const [viaRest, viaGrpc] = await Promise.all([call(rest), call(grpc)]);
      assert.deepEqual(toJson(method.output, viaRest), toJson(method.output, viaGrpc), method.name);
    }
  });

  test("toJson writes an answer byte for byte as REST does, zero values included", async () => {
    const rest = transports["rest"]!(server);
    const grpc = transports["grpc"]!(server);
    const body = { players: 4, seed: "zeros", dealer: 3, includeViews: true, includeLegalActions: true };
    const raw = await fetch(`${server.restUrl}/v1/deals:deal`, { method: "POST", body: JSON.stringify(body) });
    const text = await raw.text();
    const viaGrpc = await grpc.deal(body);
    assert.equal(JSON.stringify(toJson(DealResponseSchema, viaGrpc)), text);
    assert.equal(JSON.stringify(toJson(DealResponseSchema, await rest.deal(body))), text);
    // seat 0 and side 0 keep their fields (the first seat's view, its first seat)
    const json = toJson(DealResponseSchema, viaGrpc) as { views: { seat: number; snapshot: { seats: { side: number }[] } }[] };
    assert.equal(json.views[0]!.seat, 0);
    assert.equal(json.views[0]!.snapshot.seats[0]!.side, 0);
  });

  test("views and previous: the carried match over both transports", async () => {
    for (const client of [transports["rest"]!(server), transports["grpc"]!(server)]) {
      const dealtAnswer = await client.deal({ players: 4, seed: "carry", includeViews: true });
      assert.deepEqual(dealtAnswer.views.map((v) => v.seat), [0, 1, 2, 3]);
      const err = await rejection(client.deal({ players: 4, seed: "next", previous: dealtAnswer.snapshot }));
      assert.equal(err.status, "INVALID_ARGUMENT");
      assert.deepEqual(err.fieldViolations.map((v) => v.field), ["previous.turn.phase"]);
    }
  });

  test("suggestAction answers a legal action and its reason", async () => {
    const rest = transports["rest"]!(server);
    const snapshot = await dealt(rest);
    const seat = snapshot.turn!.seat!;
    const answer = await rest.suggestAction({ snapshot, seat, level: 2, seed: "ts" });
    assert.ok(answer.reason!.code.length > 0);
    const verdict = await rest.validateAction({ snapshot, action: answer.action! });
    assert.equal(verdict.legal, true);
  });

  test("an unreachable server is UNAVAILABLE", async () => {
    const gone = await startServer();
    await gone.stop();
    for (const make of Object.values(transports)) {
      const err = await rejection(make(gone).listRulesets({}, { timeoutMs: 5000 }));
      assert.equal(err.status, "UNAVAILABLE");
    }
  });
});
