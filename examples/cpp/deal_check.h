// Deals players can verify, with no server (docs/dealing.md): the commitment to the seed,
// the shuffle's seed from the players' contributions, the version-stable shuffle and the
// dealing, ported from the page alone.
#ifndef SAMBA_EXAMPLE_DEAL_CHECK_H_
#define SAMBA_EXAMPLE_DEAL_CHECK_H_

#include <string>
#include <vector>

#include "samba_v1.h"

namespace deal_check {

// Lowercase hex of SHA-256 of `bytes`.
std::string Sha256Hex(const std::string& bytes);

// hex(SHA-256("samba-deal-commit/v1" 0x00 seed)): what the players are shown first.
std::string Commitment(const std::string& seed);

// The seed the shuffle is keyed with: `seed` itself without contributions, else the
// length-prefixed hash of the seed and the contributions in order (dealing.md §5).
std::string ShuffleSeed(const std::string& seed, const std::vector<std::string>& contributions);

// Fisher-Yates over `items` with the SHA-256 counter-mode stream of `key_string` (§2).
std::vector<std::string> Shuffle(const std::string& key_string, std::vector<std::string> items);

// One part of a deal the revealed seeds refute, as VerifyDeal reports it.
struct Problem {
  std::string field;   // under `deal`: deal.dealCommitment, deal.seats[1].dealt, ...
  std::string reason;  // COMMITMENT_MISMATCH, NOT_THE_SHUFFLE, REQUIRED, NOTHING_TO_CHECK
};

// Checks a snapshot of the deal (the first or a later one, full or a view) against the
// revealed seed and contributions, under the deal's resolved ruleset (DealResponse.ruleset):
// the commitment, every dealt hand the snapshot does not say it hides, and on the first
// snapshot (ply 0, full) every zone. Empty when verified.
std::vector<Problem> Verify(const samba::v1::Snapshot& deal, const samba::v1::Ruleset& ruleset,
                            const std::string& seed,
                            const std::vector<std::string>& contributions);

// The test vectors of docs/dealing.md §4 and §5: an empty string when all match, else what
// did not.
std::string CheckDocumentedVectors();

// §4's whole classic deal (`golden-1`, 4 players, dealer 0), from the classic ruleset as
// GetRuleset answers it: an empty string when it matches.
std::string CheckGoldenDeal(samba::v1::Ruleset classic);

// Each whole VerifyDeal request of tests/deal_vectors.json (`requests`) answered by Verify
// as the service answered it: an empty string when all are, else their names. The requests
// the service refuses as malformed are counted in `refusals` and not checked here.
std::string CheckVectorFile(const std::string& path, int* answered, int* refusals);

}  // namespace deal_check

#endif  // SAMBA_EXAMPLE_DEAL_CHECK_H_
