// docs/dealing.md, ported: the page is the specification, engine/dealing.py and
// engine/deal_seed.py the reference it was checked against (tests/test_cpp_example.py).
#include "deal_check.h"

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>
#include <openssl/evp.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace deal_check {
namespace {

std::string Sha256(const std::string& bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest, &size, EVP_sha256(), nullptr) != 1) {
    throw std::runtime_error("SHA-256 failed");
  }
  return std::string(reinterpret_cast<char*>(digest), size);
}

std::string Hex(const std::string& bytes) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += kDigits[c >> 4];
    out += kDigits[c & 15];
  }
  return out;
}

// 4 bytes big-endian: every part of the shuffle seed's input is length-prefixed with it.
std::string U32(uint32_t n) {
  return std::string{static_cast<char>(n >> 24), static_cast<char>(n >> 16),
                     static_cast<char>(n >> 8), static_cast<char>(n)};
}

// The byte stream of §2: SHA-256(key || i as 8 bytes big-endian), i = 0, 1, ..., read as
// 32-bit big-endian words.
class Words {
 public:
  explicit Words(std::string key) : key_(std::move(key)) {}
  uint32_t Next() {
    if (offset_ == block_.size()) {
      std::string counter(8, '\0');
      for (int b = 0; b < 8; ++b) counter[7 - b] = static_cast<char>((index_ >> (8 * b)) & 255);
      block_ = Sha256(key_ + counter);
      ++index_;
      offset_ = 0;
    }
    uint32_t w = 0;
    for (int b = 0; b < 4; ++b) w = (w << 8) | static_cast<unsigned char>(block_[offset_ + b]);
    offset_ += 4;
    return w;
  }
  // Uniform in 0..m-1 by rejection sampling: no modulo bias (§2.4).
  uint32_t Uniform(uint32_t m) {
    const uint64_t limit = (uint64_t{1} << 32) - ((uint64_t{1} << 32) % m);
    for (;;) {
      uint32_t w = Next();
      if (w < limit) return w % m;
    }
  }

 private:
  std::string key_;
  std::string block_;
  size_t offset_ = 0;
  uint64_t index_ = 0;
};

std::vector<std::string> Pack(const samba::v1::Ruleset& rules) {
  static const char* kRanks[] = {"A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"};
  static const char* kSuits[] = {"S", "H", "D", "C"};
  std::vector<std::string> pack;
  for (int d = 0; d < rules.decks(); ++d) {
    for (const char* rank : kRanks) {
      for (const char* suit : kSuits) pack.push_back(std::string(rank) + suit);
    }
  }
  for (int j = 0; j < rules.jokers(); ++j) pack.push_back("JK");
  return pack;
}

bool Buried(const samba::v1::Ruleset& rules, const std::string& card) {
  using samba::v1::Ruleset;
  const bool wild = card == "JK" || card[0] == '2';
  switch (rules.upcard_buried_if()) {
    case Ruleset::BURY_WILD_OR_RED_THREE:
      return wild || card == "3H" || card == "3D";
    case Ruleset::BURY_WILD_OR_ANY_THREE:
      return wild || card[0] == '3';
    default:
      return false;
  }
}

int Sides(const samba::v1::Ruleset& rules, int players) {
  if (players == 4) return 2;
  if (players == 6) return rules.six_player_layout() == samba::v1::Ruleset::TWO_TRIOS ? 2 : 3;
  return players;
}

int HandSize(const samba::v1::Ruleset& rules, int players) {
  for (const auto& size : rules.table_sizes()) {
    if (size.players() == players) return size.hand_size();
  }
  throw std::invalid_argument("the ruleset has no table of " + std::to_string(players));
}

bool IsRedThree(const std::string& card) { return card == "3H" || card == "3D"; }

}  // namespace

// The deal of §3, from the shuffled pack.
struct Dealt {
  std::vector<std::vector<std::string>> hands;
  std::vector<int> owed;
  std::vector<std::vector<std::string>> red_threes;  // by side
  std::vector<std::string> pile;
  std::vector<std::string> stock;
};

Dealt DealFrom(const samba::v1::Ruleset& rules, int players, int dealer, int deal_number,
               const std::string& shuffle_seed) {
  std::ostringstream key;
  key << "samba-deal/v1|" << rules.version() << '|' << players << '|' << dealer << '|'
      << (deal_number == 0 ? 1 : deal_number) << '|' << shuffle_seed;
  std::vector<std::string> cards = Shuffle(key.str(), Pack(rules));
  size_t next = 0;
  Dealt out;
  out.hands.resize(players);
  out.owed.assign(players, 0);
  out.red_threes.resize(Sides(rules, players));
  for (int round = 0; round < HandSize(rules, players); ++round) {
    for (int i = 1; i <= players; ++i) out.hands[(dealer + i) % players].push_back(cards[next++]);
  }
  out.pile.push_back(cards[next++]);
  while (Buried(rules, out.pile.back()) && next < cards.size()) out.pile.push_back(cards[next++]);
  for (int i = 1; i <= players; ++i) {
    const int seat = (dealer + i) % players;
    auto& hand = out.hands[seat];
    for (;;) {
      std::vector<std::string> kept;
      int laid = 0;
      for (const auto& card : hand) {
        if (IsRedThree(card)) {
          out.red_threes[seat % out.red_threes.size()].push_back(card);
          ++laid;
        } else {
          kept.push_back(card);
        }
      }
      hand = kept;
      if (laid == 0) break;
      if (rules.red_threes() != samba::v1::Ruleset::REPLACE_NOW) {
        out.owed[seat] = laid;
        break;
      }
      for (int r = 0; r < laid && next < cards.size(); ++r) hand.push_back(cards[next++]);
    }
  }
  out.stock.assign(cards.begin() + static_cast<long>(next), cards.end());
  return out;
}

std::string Sha256Hex(const std::string& bytes) { return Hex(Sha256(bytes)); }

std::string Commitment(const std::string& seed) {
  return Sha256Hex(std::string("samba-deal-commit/v1") + '\0' + seed);
}

std::string ShuffleSeed(const std::string& seed, const std::vector<std::string>& contributions) {
  if (contributions.empty()) return seed;
  std::string input = std::string("samba-deal-seed/v1") + '\0' +
                      U32(static_cast<uint32_t>(seed.size())) + seed +
                      U32(static_cast<uint32_t>(contributions.size()));
  for (const auto& c : contributions) input += U32(static_cast<uint32_t>(c.size())) + c;
  return Sha256Hex(input);
}

std::vector<std::string> Shuffle(const std::string& key_string, std::vector<std::string> items) {
  Words words(Sha256(key_string));
  for (size_t i = items.size() - 1; i >= 1; --i) {
    std::swap(items[i], items[words.Uniform(static_cast<uint32_t>(i + 1))]);
  }
  return items;
}

namespace {

template <class Repeated>
bool Same(const Repeated& got, const std::vector<std::string>& want) {
  return std::vector<std::string>(got.begin(), got.end()) == want;
}

// The zones only the first snapshot proves: hands, red 3s, replacements owed, the pile and
// a listed stock.
void CheckFirstSnapshot(const samba::v1::Snapshot& deal, const Dealt& dealt,
                        std::vector<Problem>& problems) {
  for (int s = 0; s < deal.seats_size(); ++s) {
    const auto& seat = deal.seats(s);
    const std::string at = "deal.seats[" + std::to_string(s) + "]";
    if (!Same(seat.hand(), dealt.hands[s])) problems.push_back({at + ".hand", "NOT_THE_SHUFFLE"});
    if (seat.red_three_replacements_owed() != dealt.owed[s]) {
      problems.push_back({at + ".redThreeReplacementsOwed", "NOT_THE_SHUFFLE"});
    }
  }
  for (int i = 0; i < deal.sides_size() && i < static_cast<int>(dealt.red_threes.size()); ++i) {
    if (!Same(deal.sides(i).red_threes(), dealt.red_threes[i])) {
      problems.push_back({"deal.sides[" + std::to_string(i) + "].redThrees", "NOT_THE_SHUFFLE"});
    }
  }
  if (!Same(deal.discard_pile(), dealt.pile)) {
    problems.push_back({"deal.discardPile", "NOT_THE_SHUFFLE"});
  }
  if (!deal.stock_hidden() && !Same(deal.stock(), dealt.stock)) {
    problems.push_back({"deal.stock", "NOT_THE_SHUFFLE"});
  }
}

}  // namespace

std::vector<Problem> Verify(const samba::v1::Snapshot& deal, const samba::v1::Ruleset& ruleset,
                            const std::string& seed,
                            const std::vector<std::string>& contributions) {
  std::vector<Problem> problems;
  if (deal.deal_commitment().empty()) {
    problems.push_back({"deal.dealCommitment", "REQUIRED"});
  } else if (deal.deal_commitment() != Commitment(seed)) {
    problems.push_back({"deal.dealCommitment", "COMMITMENT_MISMATCH"});
  }
  const int players = deal.seats_size();
  const Dealt dealt = DealFrom(ruleset, players, deal.dealer(), deal.deal_number(),
                               ShuffleSeed(seed, contributions));
  bool shown = false;
  for (int s = 0; s < players; ++s) {
    // A view hides the seat (handHidden, which input may leave out on a seat whose cards
    // are counted but not listed): nothing to prove there.
    const auto& seat = deal.seats(s);
    if (seat.hand_hidden() || (seat.hand().empty() && seat.hand_count() > 0)) continue;
    shown = true;
    if (!Same(deal.seats(s).dealt(), dealt.hands[s])) {
      problems.push_back({"deal.seats[" + std::to_string(s) + "].dealt", "NOT_THE_SHUFFLE"});
    }
  }
  if (!shown) problems.push_back({"deal.seats", "NOTHING_TO_CHECK"});
  const bool full = shown && !deal.stock_hidden();
  if (deal.ply() == 0 && full) CheckFirstSnapshot(deal, dealt, problems);
  return problems;
}

std::string CheckDocumentedVectors() {
  std::ostringstream bad;
  const std::string key = Sha256Hex("samba-deal/v1|test|4|0|1|abc");
  if (key != "6256310cedda69a8b714e56d7079f7a0c4de295120ef12c6a4669502ebf49141") {
    bad << "key " << key << "; ";
  }
  std::vector<std::string> digits;
  for (int i = 0; i < 10; ++i) digits.push_back(std::to_string(i));
  std::string order;
  for (const auto& d : Shuffle("samba-deal/v1|test|4|0|1|abc", digits)) order += d + " ";
  if (order != "3 2 1 9 6 0 8 7 5 4 ") bad << "shuffle " << order << "; ";
  if (Commitment("golden-1") != "54750da041ce5f1a06fd4eab38bc903695b7a165ef816fe1d883743f5a26cd2f") {
    bad << "commitment; ";
  }
  if (ShuffleSeed("golden-1", {"alice", "bob"}) !=
      "dcfd20ab1d473a463fbfe000dd7cdc220faafd67c0626be610af2dc42afef82b") {
    bad << "shuffle seed; ";
  }
  return bad.str();
}

std::string CheckGoldenDeal(samba::v1::Ruleset classic) {
  // §4's whole-deal vector: classic, 4 players, the version replaced by `golden`.
  classic.set_version("golden");
  const Dealt dealt = DealFrom(classic, 4, 0, 1, "golden-1");
  std::ostringstream got;
  for (int i = 0; i < 5; ++i) got << dealt.hands[1][i] << ' ';
  got << "| " << dealt.pile.back() << " | " << dealt.stock.size() << ' ' << dealt.stock[0] << ' '
      << dealt.stock[1] << ' ' << dealt.stock[2] << " |";
  for (const auto& side : dealt.red_threes) {
    for (const auto& card : side) got << ' ' << card;
    got << " /";
  }
  const std::string want = "AH 5S 6S 2C 8C | 10H | 97 KD 3D 5C | 3D 3H 3H / 3D /";
  return got.str() == want ? "" : "golden deal: " + got.str();
}

namespace {

using google::protobuf::Struct;
using google::protobuf::Value;

// One JSON value of the vectors file, read into a message through its JSON.
template <class Message>
bool Read(const Value& json, Message* out) {
  std::string text;
  google::protobuf::util::JsonParseOptions lenient;
  lenient.ignore_unknown_fields = true;
  return google::protobuf::util::MessageToJsonString(json, &text).ok() &&
         google::protobuf::util::JsonStringToMessage(text, out, lenient).ok();
}

std::vector<std::string> Strings(const Value& list) {
  std::vector<std::string> out;
  for (const auto& v : list.list_value().values()) out.push_back(v.string_value());
  return out;
}

}  // namespace

std::string CheckVectorFile(const std::string& path, int* answered, int* refusals) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  Struct root;
  if (!file || !google::protobuf::util::JsonStringToMessage(text.str(), &root).ok()) {
    return "cannot read " + path;
  }
  // The requests are all of the classic-2 deal: its resolved ruleset keys the shuffle.
  samba::v1::Ruleset ruleset;
  for (const auto& deal : root.fields().at("deals").list_value().values()) {
    if (deal.struct_value().fields().at("name").string_value() == "classic-2") {
      Read(deal.struct_value().fields().at("ruleset"), &ruleset);
    }
  }
  std::string bad;
  for (const auto& vector : root.fields().at("requests").list_value().values()) {
    const auto& fields = vector.struct_value().fields();
    const std::string name = fields.at("name").string_value();
    if (fields.count("refused")) {  // a malformed request: the service's validation, not ported
      ++*refusals;
      continue;
    }
    const auto& request = fields.at("request").struct_value().fields();
    samba::v1::Snapshot deal;
    if (!Read(request.at("deal"), &deal)) return "cannot read the deal of " + name;
    const auto contributions = request.count("seedContributions")
                                   ? Strings(request.at("seedContributions"))
                                   : std::vector<std::string>{};
    std::vector<std::string> got, want;
    for (const auto& p : Verify(deal, ruleset, request.at("seed").string_value(), contributions)) {
      got.push_back(p.field + " " + p.reason);
    }
    for (const auto& p : fields.at("problems").list_value().values()) {
      const auto pair = Strings(p);
      want.push_back(pair[0] + " " + pair[1]);
    }
    if (got != want || fields.at("verified").bool_value() != got.empty()) bad += name + "; ";
    ++*answered;
  }
  return bad;
}

}  // namespace deal_check
