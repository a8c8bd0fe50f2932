// A bot that plays one whole 4-player `classic` deal through the adjudicator and prints
// the score. Every decision comes from the service: whose turn it is (awaitingSeats), what
// may be done (ListLegalActions), what happened (ApplyAction); the bot only picks.
//
//   node .build/examples/play-deal.js --transport rest --url http://127.0.0.1:8080
//   node .build/examples/play-deal.js --transport grpc --url http://127.0.0.1:50051
import { parseArgs } from "node:util";
import {
  Result_Reason,
  Turn_Phase,
  type Action,
  type AdjudicatorClient,
  type Snapshot,
  createRestClient,
} from "@samba-adjudicator/client";
import { createGrpcClient } from "@samba-adjudicator/client/grpc";

// Lower is preferred. Melding first gets canastas (and a chance to go out); drawing from an
// empty stock ends the deal, so the bot never keeps a dry game alive by taking piles.
function preference(action: Action, snapshot: Snapshot): number {
  switch (action.kind.case) {
    case "drawStock":
      return snapshot.stockCount === 0 ? 0 : 3;
    case "meld":
      return 1;
    case "takePile":
    case "takeTopCard":
      return 2;
    case "discard":
      return 4;
    case "answerGoOut":
      return action.kind.value.allow ? 5 : 6;
    case "askGoOut":
      return 7;
    default: // swapWild: a bot gains nothing from it
      return 8;
  }
}

/** A small seeded generator (mulberry32), so a seed replays the same game. */
function seededRandom(seed: string): () => number {
  let state = 0;
  for (const ch of seed) state = (Math.imul(state, 31) + ch.charCodeAt(0)) | 0;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Every legal action of `seat`, following the pages. */
async function legalActions(client: AdjudicatorClient, snapshot: Snapshot, seat: number): Promise<Action[]> {
  const actions: Action[] = [];
  let pageToken = "";
  do {
    const page = await client.listLegalActions({ snapshot, seat, pageSize: 1000, pageToken });
    actions.push(...page.actions);
    pageToken = page.nextPageToken;
  } while (pageToken);
  return actions;
}

export async function playDeal(client: AdjudicatorClient, seed: string, maxActions = 5000) {
  const random = seededRandom(seed);
  let { snapshot } = await client.deal({ ruleset: { profile: "classic" }, players: 4, seed });
  let applied = 0;
  while (snapshot && snapshot.turn?.phase !== Turn_Phase.OVER) {
    if (applied >= maxActions) throw new Error(`the deal did not end in ${maxActions} actions`);
    // Usually the seat whose turn it is; a partner when asked "may I go out?".
    const seat = snapshot.turn!.awaitingSeats[0]!;
    const legal = await legalActions(client, snapshot, seat);
    const best = Math.min(...legal.map((a) => preference(a, snapshot!)));
    const candidates = legal.filter((a) => preference(a, snapshot!) === best);
    const action = candidates[Math.floor(random() * candidates.length)]!;
    const answer = await client.applyAction({ snapshot, action: { ...action, expectedPly: snapshot.ply } });
    if (!answer.legal) throw new Error(`listed action refused: ${answer.violations.map((v) => v.code).join(", ")}`);
    snapshot = answer.snapshot!;
    applied += 1;
  }
  const score = await client.scoreDeal({ snapshot });
  return { snapshot: snapshot!, score, applied };
}

async function main() {
  const { values } = parseArgs({
    options: {
      transport: { type: "string", default: "rest" },
      url: { type: "string", default: "http://127.0.0.1:8080" },
      seed: { type: "string", default: "example-bot" },
    },
  });
  const grpc = values.transport === "grpc" ? createGrpcClient({ baseUrl: values.url!, timeoutMs: 10_000 }) : undefined;
  const client = grpc ?? createRestClient({ baseUrl: values.url!, timeoutMs: 10_000 });
  try {
    const { snapshot, score, applied } = await playDeal(client, values.seed!);
    const result = snapshot.result!;
    console.log(`deal over after ${applied} actions: ${Result_Reason[result.reason]}`);
    for (const side of score.sides) console.log(`side ${side.side}: ${side.dealTotal} points`);
    console.log(JSON.stringify({ applied, sides: score.sides.map((s) => s.dealTotal) }));
  } finally {
    grpc?.close();
  }
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/^.*\//, "/"))) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
