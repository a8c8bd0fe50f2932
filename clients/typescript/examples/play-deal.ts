// A bot that plays one whole 4-player `classic` deal through the adjudicator and prints
// the score. Every decision comes from the service: whose turn it is and what may be done
// (`nextActions`), what happened (ApplyAction); the bot only picks. As a game server would,
// it asks every answer for each seat's view (`includeViews`): one call per move gives the
// next player's actions and what to send each player; ListLegalActions is called only for
// the rest of a list longer than one page.
//
//   node .build/examples/play-deal.js --transport rest --url http://127.0.0.1:8080
//   node .build/examples/play-deal.js --transport grpc --url http://127.0.0.1:50051
import { parseArgs } from "node:util";
import {
  Result_Reason,
  Turn_Phase,
  type Action,
  type AdjudicatorClient,
  type NextActions,
  type ScoreDealResponse,
  type SeatView,
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

/** The awaited seat's legal actions: the answer's first page, then any further pages. */
async function legalActions(client: AdjudicatorClient, snapshot: Snapshot, next: NextActions): Promise<Action[]> {
  const actions: Action[] = [...next.actions];
  let pageToken = next.nextPageToken;
  while (pageToken) {
    const page = await client.listLegalActions({ snapshot, seat: next.seat, pageSize: 1000, pageToken });
    actions.push(...page.actions);
    pageToken = page.nextPageToken;
  }
  return actions;
}

/** Asked of every Deal and ApplyAction: each seat's view and the next seat's first page. */
const EXTRAS = { includeViews: true, includeLegalActions: true } as const;

export async function playDeal(client: AdjudicatorClient, seed: string, maxActions = 5000) {
  const random = seededRandom(seed);
  let answer: { snapshot?: Snapshot; nextActions?: NextActions; views: SeatView[] } = await client.deal({
    ruleset: { profile: "classic" },
    players: 4,
    seed,
    ...EXTRAS,
  });
  let score: ScoreDealResponse | undefined;
  let applied = 0;
  while (answer.snapshot?.turn?.phase !== Turn_Phase.OVER) {
    if (applied >= maxActions) throw new Error(`the deal did not end in ${maxActions} actions`);
    // A game server sends each player answer.views[seat] here (snapshot and events).
    const snapshot = answer.snapshot!;
    const legal = await legalActions(client, snapshot, answer.nextActions!);
    const best = Math.min(...legal.map((a) => preference(a, snapshot)));
    const candidates = legal.filter((a) => preference(a, snapshot) === best);
    const action = candidates[Math.floor(random() * candidates.length)]!;
    const result = await client.applyAction({ snapshot, action: { ...action, expectedPly: snapshot.ply }, ...EXTRAS });
    if (!result.legal) throw new Error(`listed action refused: ${result.violations.map((v) => v.code).join(", ")}`);
    answer = result;
    score = result.score;
    applied += 1;
  }
  return { snapshot: answer.snapshot!, score: score!, applied };
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
