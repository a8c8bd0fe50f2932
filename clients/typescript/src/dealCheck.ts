// Checking a deal against its revealed seeds with no server (docs/dealing.md §5): the
// commitment, the shuffle's seed, the version-stable shuffle and the dealing of the hands,
// written again from the documented construction. WebCrypto's SHA-256 (browsers, Node 20+).
import type { Ruleset, Snapshot } from "./index.js";
import { Ruleset_RedThreeReplacement, Ruleset_UpcardRule } from "./index.js";

export interface DealProblem { field: string; reason: string; description: string }
export interface DealCheck { verified: boolean; problems: DealProblem[] }

const utf8 = new TextEncoder();
const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
const SUITS = ["S", "H", "D", "C"];
const RED_THREES = new Set(["3H", "3D"]);
const WILDS = new Set(["JK", "2S", "2H", "2D", "2C"]);

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

/** The pack in the order the deal uses it (docs/dealing.md §2). */
export async function shuffledPack(
  version: string, players: number, dealer: number, dealNumber: number, seed: string,
  decks: number, jokers: number,
): Promise<string[]> {
  const key = await sha256(utf8.encode(`samba-deal/v1|${version}|${players}|${dealer}|${dealNumber || 1}|${seed}`));
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

/** Each seat's `dealt` (its hand after red-3 handling) from the shuffled pack (§3). */
export function dealtHands(pack: readonly string[], players: number, dealer: number, ruleset: Ruleset): string[][] {
  const size = ruleset.tableSizes.find((t) => t.players === players)?.handSize ?? 0;
  const order = Array.from({ length: players }, (_, k) => (dealer + k + 1) % players);
  const hands: string[][] = Array.from({ length: players }, () => []);
  let pos = 0;
  for (let r = 0; r < size; r++) for (const s of order) hands[s]!.push(pack[pos++]!);
  const buried = (c: string) =>
    ruleset.upcardBuriedIf === Ruleset_UpcardRule.BURY_WILD_OR_RED_THREE ? WILDS.has(c) || RED_THREES.has(c)
    : ruleset.upcardBuriedIf === Ruleset_UpcardRule.BURY_WILD_OR_ANY_THREE ? WILDS.has(c) || c.startsWith("3")
    : false;
  pos += 1; // the upcard
  while (pos < pack.length && buried(pack[pos - 1]!)) pos += 1;
  const replaceNow = ruleset.redThrees !== Ruleset_RedThreeReplacement.REPLACE_AT_FIRST_TURN;
  for (const s of order) {
    let hand = hands[s]!;
    while (hand.some((c) => RED_THREES.has(c))) {
      const laid = hand.filter((c) => RED_THREES.has(c)).length;
      hand = hand.filter((c) => !RED_THREES.has(c));
      hands[s] = hand;
      if (!replaceNow) break;
      hand.push(...pack.slice(pos, pos + laid));
      pos += laid;
    }
  }
  return hands;
}

/**
 * Whether `deal` (a snapshot of the deal, first or later, full or a player's view) follows
 * from the revealed `seed` and `contributions` under `ruleset` (GetRuleset's answer): the
 * commitment is the seed's and every `dealt` the deal shows is what the seeds deal.
 */
export async function verifyDeal(
  deal: Snapshot, seed: string, contributions: readonly string[], ruleset: Ruleset,
): Promise<DealCheck> {
  const problems: DealProblem[] = [];
  if (!deal.dealCommitment) {
    problems.push({ field: "deal.dealCommitment", reason: "REQUIRED", description: "the deal carries no commitment" });
  } else if (deal.dealCommitment !== (await dealCommitment(seed))) {
    problems.push({ field: "deal.dealCommitment", reason: "COMMITMENT_MISMATCH", description: "the commitment is not the revealed seed's" });
  }
  const players = deal.seats.length;
  const pack = await shuffledPack(ruleset.version, players, deal.dealer, deal.dealNumber,
    await shuffleSeed(seed, contributions), ruleset.decks, ruleset.jokers);
  const hands = dealtHands(pack, players, deal.dealer, ruleset);
  let shown = 0;
  deal.seats.forEach((seat, i) => {
    if (seat.dealt.length === 0 && seat.handHidden) return;
    shown += 1;
    if (seat.dealt.join(" ") !== hands[i]!.join(" ")) {
      const field = `deal.seats[${i}].dealt`;
      problems.push({ field, reason: "NOT_THE_SHUFFLE", description: `${field} is not what the seeds deal` });
    }
  });
  if (shown === 0) problems.push({ field: "deal.seats", reason: "NOTHING_TO_CHECK", description: "the deal shows no dealt cards" });
  return { verified: problems.length === 0, problems };
}
