// The table key every call carries as `x-samba-table` (a REST header or gRPC metadata), so
// that a balancer can send a table's calls to one place (docs/deployment.md): each worker of
// the service keeps the snapshots it loaded or answered, and the next call of a game sends
// back the snapshot the last answer rendered. The key is, in order: the call's `table`
// option; the `dealCommitment` of the snapshot the request carries (`snapshot`, Deal's
// `previous`, VerifyDeal's `deal`); for a Deal, the commitment of its `seed`, which its
// answer will carry. The same rule as the Python client's (clients/python/client/tables.py).
import { dealCommitment } from "./dealCheck.js";

/** The header (gRPC metadata key) of the table key. */
export const TABLE_HEADER = "x-samba-table";

const SNAPSHOT_FIELDS = ["snapshot", "previous", "deal"] as const;

/** The table key of a request of the RPC `method` (its protobuf-es local name: `deal`, …). */
export async function tableKey(method: string, request: object): Promise<string | undefined> {
  const fields = request as Record<string, unknown>;
  if (method === "deal" && typeof fields.seed === "string" && fields.seed) {
    return dealCommitment(fields.seed);
  }
  for (const name of SNAPSHOT_FIELDS) {
    const snapshot = fields[name] as { dealCommitment?: unknown } | undefined;
    if (snapshot && typeof snapshot.dealCommitment === "string" && snapshot.dealCommitment) {
      return snapshot.dealCommitment;
    }
  }
  return undefined;
}

/** The header of a call's table key, none without one. */
export function tableHeaders(table: string | undefined): Record<string, string> {
  return table ? { [TABLE_HEADER]: table } : {};
}
