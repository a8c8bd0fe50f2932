// Checking a deal against its revealed seeds with no server (docs/dealing.md §5): the
// commitment, the shuffle's seed, the version-stable shuffle and the dealing of the hands,
// written again from the documented construction. WebCrypto's SHA-256 (browsers, Node 20+).
import type { Ruleset, Seat, Snapshot } from "./index.js";
import { Ruleset_RedThreeReplacement, Ruleset_SixPlayerLayout, Ruleset_UpcardRule } from "./index.js";
import { AdjudicatorError, type FieldViolation } from "./errors.js";

export interface DealProblem { field: string; reason: string; description: string }
export interface DealCheck { verified: boolean; problems: DealProblem[] }

const utf8 = new TextEncoder();
const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
const SUITS = ["S", "H", "D", "C"];
const RED_THREES = new Set(["3H", "3D"]);
const WILDS = new Set(["JK", "2S", "2H", "2D", "2C"]);
const MAX_SEED_BYTES = 128; // a seed, and each contribution
const MAX_CONTRIBUTIONS = 64;

async function sha256(data: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await globalThis.crypto.subtle.digest("SHA-256", new Uint8Array(data)));
}
const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
}
function u32(n: number): Uint8Array {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, n);
  return b;
}

/** The commitment a deal made with `seed` carries (`dealCommitment`). */
export async function dealCommitment(seed: string): Promise<string> {
  return hex(await sha256(concat([utf8.encode("samba-deal-commit/v1\0"), utf8.encode(seed)])));
}

/** The seed the shuffle uses: `seed` alone, or the hash of it and the contributions. */
export async function shuffleSeed(seed: string, contributions: readonly string[] = []): Promise<string> {
  if (contributions.length === 0) return seed;
  const raw = utf8.encode(seed);
  const parts = [utf8.encode("samba-deal-seed/v1\0"), u32(raw.length), raw, u32(contributions.length)];
  for (const c of contributions) {
    const data = utf8.encode(c);
    parts.push(u32(data.length), data);
  }
  return hex(await sha256(concat(parts)));
}

// The last packs shuffled, by their key string and pack size: checking many views of one
// deal shuffles once (each pack is some 20 SHA-256 calls).
const PACKS = new Map<string, readonly string[]>();
const PACKS_KEPT = 32;

/** The pack in the order the deal uses it (docs/dealing.md §2). */
export async function shuffledPack(
  version: string, players: number, dealer: number, dealNumber: number, seed: string,
  decks: number, jokers: number,
): Promise<string[]> {
  const text = `samba-deal/v1|${version}|${players}|${dealer}|${dealNumber || 1}|${seed}`;
  const kept = PACKS.get(`${decks}|${jokers}|${text}`);
  if (kept) return [...kept];
  const pack = await shuffle(text, decks, jokers);
  if (PACKS.size >= PACKS_KEPT) PACKS.delete(PACKS.keys().next().value!);
  PACKS.set(`${decks}|${jokers}|${text}`, pack);
  return [...pack];
}

async function shuffle(text: string, decks: number, jokers: number): Promise<string[]> {
  const key = await sha256(utf8.encode(text));
  const a: string[] = [];
  for (let d = 0; d < decks; d++) for (const r of RANKS) for (const s of SUITS) a.push(r + s);
  for (let j = 0; j < jokers; j++) a.push("JK");
  const words: number[] = [];
  let block = 0;
  let next = 0;
  const word = async () => {
    if (next === words.length) {
      const counter = new Uint8Array(8);
      new DataView(counter.buffer).setBigUint64(0, BigInt(block++));
      const digest = await sha256(concat([key, counter]));
      const view = new DataView(digest.buffer);
      for (let k = 0; k < 32; k += 4) words.push(view.getUint32(k));
    }
    return words[next++]!;
  };
  for (let i = a.length - 1; i > 0; i--) {
    const m = i + 1;
    const limit = 2 ** 32 - (2 ** 32 % m);
    let w = await word();
    while (w >= limit) w = await word();
    const j = w % m;
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}

/** The first snapshot's zones from the shuffled pack (§3): `hands` (each seat's `dealt`). */
export interface DealtPosition {
  hands: string[][];
  owed: number[];
  redThrees: string[][];
  discardPile: string[];
  stock: string[];
}

function sidesOf(players: number, ruleset: Ruleset): number {
  if (players === 4) return 2;
  if (players === 6) return ruleset.sixPlayerLayout === Ruleset_SixPlayerLayout.TWO_TRIOS ? 2 : 3;
  return players;
}

/** Every zone of the deal's first snapshot, from the shuffled pack (§3). */
export function dealtPosition(pack: readonly string[], players: number, dealer: number, ruleset: Ruleset): DealtPosition {
  const size = ruleset.tableSizes.find((t) => t.players === players)?.handSize ?? 0;
  const order = Array.from({ length: players }, (_, k) => (dealer + k + 1) % players);
  const hands: string[][] = Array.from({ length: players }, () => []);
  let pos = 0;
  for (let r = 0; r < size; r++) for (const s of order) hands[s]!.push(pack[pos++]!);
  const buried = (c: string) =>
    ruleset.upcardBuriedIf === Ruleset_UpcardRule.BURY_WILD_OR_RED_THREE ? WILDS.has(c) || RED_THREES.has(c)
    : ruleset.upcardBuriedIf === Ruleset_UpcardRule.BURY_WILD_OR_ANY_THREE ? WILDS.has(c) || c.startsWith("3")
    : false;
  const start = pos;
  pos += 1; // the upcard
  while (pos < pack.length && buried(pack[pos - 1]!)) pos += 1;
  const discardPile = pack.slice(start, pos);
  const replaceNow = ruleset.redThrees !== Ruleset_RedThreeReplacement.REPLACE_AT_FIRST_TURN;
  const sides = sidesOf(players, ruleset);
  const redThrees: string[][] = Array.from({ length: sides }, () => []);
  const owed = new Array<number>(players).fill(0);
  for (const s of order) {
    while (hands[s]!.some((c) => RED_THREES.has(c))) {
      const laid = hands[s]!.filter((c) => RED_THREES.has(c));
      hands[s] = hands[s]!.filter((c) => !RED_THREES.has(c));
      redThrees[s % sides]!.push(...laid);
      if (!replaceNow) {
        owed[s] = laid.length;
        break;
      }
      hands[s]!.push(...pack.slice(pos, pos + laid.length));
      pos += laid.length;
    }
  }
  return { hands, owed, redThrees, discardPile, stock: pack.slice(pos) };
}

/** Each seat's `dealt` (its hand after red-3 handling) from the shuffled pack (§3). */
export function dealtHands(pack: readonly string[], players: number, dealer: number, ruleset: Ruleset): string[][] {
  return dealtPosition(pack, players, dealer, ruleset).hands;
}

/**
 * The view hides the seat's cards (`handHidden`; a hand of `handCount` > 0 with no card
 * listed can only be hidden): docs/api.md, "What a view hides". Never an empty list alone.
 */
function hidden(seat: Seat): boolean {
  return seat.hand.length === 0 && (seat.handCount > 0 || seat.handHidden);
}

/** What the service refuses as INVALID_ARGUMENT, in its order. */
function violations(deal: Snapshot, seed: string, contributions: readonly string[]): FieldViolation[] {
  const out: FieldViolation[] = [];
  const bytes = (text: string) => utf8.encode(text).length;
  if (!seed) out.push({ field: "seed", reason: "REQUIRED", description: "seed is required" });
  else if (bytes(seed) > MAX_SEED_BYTES) out.push({ field: "seed", reason: "OUT_OF_RANGE", description: "seed is at most 128 bytes of UTF-8" });
  if (contributions.length > MAX_CONTRIBUTIONS) {
    out.push({ field: "seedContributions", reason: "OUT_OF_RANGE", description: "seedContributions lists at most 64" });
  }
  contributions.slice(0, MAX_CONTRIBUTIONS).forEach((c, i) => {
    if (!c || bytes(c) > MAX_SEED_BYTES) {
      out.push({ field: `seedContributions[${i}]`, reason: "OUT_OF_RANGE", description: "a contribution is 1 to 128 bytes" });
    }
  });
  if (deal.dealCommitment && !/^[0-9a-f]{64}$/.test(deal.dealCommitment)) {
    out.push({ field: "deal.dealCommitment", reason: "OUT_OF_RANGE", description: "64 lowercase hex digits" });
  }
  deal.seats.forEach((seat, i) => {
    if (seat.handHidden && seat.hand.length > 0) {
      out.push({ field: `deal.seats[${i}].handHidden`, reason: "DERIVED_FIELD_DISAGREES", description: "a hidden hand lists no card" });
    }
  });
  return out;
}

/** Throws what the service would answer instead of a check. */
function refuse(deal: Snapshot, seed: string, contributions: readonly string[], ruleset: Ruleset): void {
  const bad = violations(deal, seed, contributions);
  if (bad.length > 0) {
    throw new AdjudicatorError({ status: "INVALID_ARGUMENT", reason: "INVALID_REQUEST", message: `${bad.length} problem(s)`, fieldViolations: bad });
  }
  const pinned = deal.ruleset?.version ?? "";
  if (pinned && pinned !== ruleset.version) {
    throw new AdjudicatorError({
      status: "FAILED_PRECONDITION", reason: "RULESET_VERSION_MISMATCH",
      message: `the deal pins ruleset version ${JSON.stringify(pinned)}, not ${JSON.stringify(ruleset.version)}`,
    });
  }
}

const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);
const differs = (field: string): DealProblem => ({ field, reason: "NOT_THE_SHUFFLE", description: `${field} is not what the seeds deal` });

function firstSnapshotProblems(deal: Snapshot, want: DealtPosition): DealProblem[] {
  const out: DealProblem[] = [];
  deal.seats.forEach((seat, i) => {
    if (!hidden(seat) && !same(seat.hand, want.hands[i]!)) out.push(differs(`deal.seats[${i}].hand`));
    if (seat.redThreeReplacementsOwed !== want.owed[i]) out.push(differs(`deal.seats[${i}].redThreeReplacementsOwed`));
  });
  deal.sides.forEach((side, k) => {
    if (!same(side.redThrees, want.redThrees[k] ?? [])) out.push(differs(`deal.sides[${k}].redThrees`));
  });
  if (!same(deal.discardPile, want.discardPile)) out.push(differs("deal.discardPile"));
  const stockHidden = deal.stock.length === 0 && deal.stockCount > 0;
  if (!stockHidden && !same(deal.stock, want.stock)) out.push(differs("deal.stock"));
  return out;
}

/**
 * Whether `deal` (a snapshot of the deal, first or later, full or a player's view) follows
 * from the revealed `seed` and `contributions` under `ruleset` (the deal's: Deal's answer
 * `ruleset`, or GetRuleset's for a profile without overrides), as the service's VerifyDeal
 * answers: the commitment is the seed's, every `dealt` the deal does not say it hides is
 * what the seeds deal, and a first snapshot's other zones too. What VerifyDeal refuses (a
 * bad seed or contribution, a malformed commitment, `handHidden` on a listed hand, another
 * pinned ruleset version) throws the same `AdjudicatorError`.
 */
export async function verifyDeal(
  deal: Snapshot, seed: string, contributions: readonly string[], ruleset: Ruleset,
): Promise<DealCheck> {
  refuse(deal, seed, contributions, ruleset);
  const problems: DealProblem[] = [];
  if (!deal.dealCommitment) {
    problems.push({ field: "deal.dealCommitment", reason: "REQUIRED", description: "the deal carries no commitment" });
  } else if (deal.dealCommitment !== (await dealCommitment(seed))) {
    problems.push({ field: "deal.dealCommitment", reason: "COMMITMENT_MISMATCH", description: "the commitment is not the revealed seed's" });
  }
  const players = deal.seats.length;
  const pack = await shuffledPack(ruleset.version, players, deal.dealer, deal.dealNumber,
    await shuffleSeed(seed, contributions), ruleset.decks, ruleset.jokers);
  const want = dealtPosition(pack, players, deal.dealer, ruleset);
  let shown = 0;
  deal.seats.forEach((seat, i) => {
    if (seat.dealt.length === 0 && hidden(seat)) return; // the view says it hides this seat
    shown += 1;
    if (!same(seat.dealt, want.hands[i]!)) problems.push(differs(`deal.seats[${i}].dealt`));
  });
  if (shown === 0) problems.push({ field: "deal.seats", reason: "NOTHING_TO_CHECK", description: "the deal shows no dealt cards" });
  if (deal.ply === 0) problems.push(...firstSnapshotProblems(deal, want));
  return { verified: problems.length === 0, problems };
}
