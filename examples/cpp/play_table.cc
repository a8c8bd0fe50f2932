// A C++ game server's table, as docs/clients.md describes it: a signed 4-seat deal whose
// seats 1-3 are computer players, one ApplyAction per move with seat 0's view and the next
// actions in the answer; a rich error decoded; the view checked for what it hides; the deal
// verified by the commit-reveal check of docs/dealing.md, here and by VerifyDeal.
//
//   play_table HOST:PORT [SEED [DEAL_VECTORS_JSON]]
//
// With tests/deal_vectors.json, the port of the check also answers its VerifyDeal requests.
// Prints one line per check, "name: ..." ("ok" or what failed), and exits 1 if any failed.
#include <grpcpp/grpcpp.h>

#include <chrono>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "deal_check.h"
#include "samba_v1.h"

namespace {

using samba::v1::Adjudicator;

// Retries for what is worth retrying (docs/api.md#retries-and-idempotency): every RPC is
// idempotent. The retry policy alone does not ride out a restart: without wait_for_ready a
// call made while the channel is reconnecting fails at once, so each call also waits for
// the channel within its deadline (Prepare, below).
constexpr char kServiceConfig[] = R"({
  "methodConfig": [{
    "name": [{"service": "samba.v1.Adjudicator"}],
    "retryPolicy": {"maxAttempts": 5, "initialBackoff": "0.1s", "maxBackoff": "1s",
                    "backoffMultiplier": 2,
                    "retryableStatusCodes": ["UNAVAILABLE", "CANCELLED"]}
  }]
})";

constexpr int kMaxMoves = 3000;  // a deal of 4 ends far sooner; a bound against a loop

int failures = 0;

void Report(const std::string& name, const std::string& problem, const std::string& figures) {
  if (!problem.empty()) ++failures;
  std::cout << name << ": " << (problem.empty() ? "ok" : "FAILED " + problem)
            << (figures.empty() ? "" : " " + figures) << std::endl;
}

std::shared_ptr<grpc::Channel> Connect(const std::string& target) {
  grpc::ChannelArguments args;
  args.SetServiceConfigJSON(kServiceConfig);
  // Reconnect within about a second, not gRPC's default of up to two minutes.
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  return grpc::CreateCustomChannel(target, grpc::InsecureChannelCredentials(), args);
}

// Every call: a deadline, wait_for_ready, the table key a balancer hashes on, the language
// of the messages and a request id to find the server's log line.
void Prepare(grpc::ClientContext& context, const std::string& table, const std::string& id,
             const std::string& language = "en") {
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  context.set_wait_for_ready(true);
  if (!table.empty()) context.AddMetadata("x-samba-table", table);
  context.AddMetadata("accept-language", language);
  context.AddMetadata("x-request-id", id);
}

std::string Trailer(const grpc::ClientContext& context, const std::string& key) {
  const auto& trailers = context.GetServerTrailingMetadata();
  auto it = trailers.find(key);
  return it == trailers.end() ? "" : std::string(it->second.data(), it->second.size());
}

std::string StatusName(grpc::StatusCode code) {
  static const std::map<grpc::StatusCode, std::string> kNames = {
      {grpc::StatusCode::OK, "OK"},
      {grpc::StatusCode::CANCELLED, "CANCELLED"},
      {grpc::StatusCode::INVALID_ARGUMENT, "INVALID_ARGUMENT"},
      {grpc::StatusCode::DEADLINE_EXCEEDED, "DEADLINE_EXCEEDED"},
      {grpc::StatusCode::NOT_FOUND, "NOT_FOUND"},
      {grpc::StatusCode::PERMISSION_DENIED, "PERMISSION_DENIED"},
      {grpc::StatusCode::RESOURCE_EXHAUSTED, "RESOURCE_EXHAUSTED"},
      {grpc::StatusCode::FAILED_PRECONDITION, "FAILED_PRECONDITION"},
      {grpc::StatusCode::UNAVAILABLE, "UNAVAILABLE"},
  };
  const auto it = kNames.find(code);
  return it == kNames.end() ? "status " + std::to_string(code) : it->second;
}

// The rich status every error carries: google.rpc.Status in grpc-status-details-bin, with
// one ErrorInfo and, for INVALID_ARGUMENT, a BadRequest listing every problem.
std::string Decode(const grpc::Status& status) {
  google::rpc::Status rich;
  if (!rich.ParseFromString(status.error_details())) return "no rich status";
  std::string out = StatusName(status.error_code());
  for (const auto& detail : rich.details()) {
    google::rpc::ErrorInfo info;
    google::rpc::BadRequest bad;
    if (detail.UnpackTo(&info)) {
      const auto id = info.metadata().find("requestId");
      out += " reason=" + info.reason() + " domain=" + info.domain() +
             " requestId=" + (id == info.metadata().end() ? "" : id->second);
    } else if (detail.UnpackTo(&bad)) {
      for (const auto& v : bad.field_violations()) out += " " + v.field() + "=" + v.reason();
    }
  }
  return out;
}

void DecodeRichError(Adjudicator::Stub& stub) {
  grpc::ClientContext context;
  Prepare(context, "", "cpp-bad-meld", "es");
  samba::v1::CheckMeldRequest request;
  request.add_cards("7H");
  request.add_cards("ZZ");
  samba::v1::CheckMeldResponse answer;
  const grpc::Status status = stub.CheckMeld(&context, request, &answer);
  const std::string decoded = Decode(status);
  const bool right = status.error_code() == grpc::StatusCode::INVALID_ARGUMENT &&
                     decoded.find("reason=INVALID_REQUEST") != std::string::npos &&
                     decoded.find("cards[1]=UNKNOWN_CARD_CODE") != std::string::npos;
  Report("rich error", right ? "" : decoded,
         decoded + " trailer x-request-id=" + Trailer(context, "x-request-id") +
             " content-language=" + Trailer(context, "content-language"));
}

// A forged snapshot (one card of another hand changed) is refused by the signature.
void RefuseForgery(Adjudicator::Stub& stub, const samba::v1::Snapshot& signed_snapshot) {
  samba::v1::ApplyActionRequest request;
  *request.mutable_snapshot() = signed_snapshot;
  auto* hand = request.mutable_snapshot()->mutable_seats(1)->mutable_hand();
  *hand->Mutable(0) = hand->Get(0) == "AS" ? "KS" : "AS";
  request.mutable_action()->set_seat(signed_snapshot.turn().seat());
  request.mutable_action()->mutable_draw_stock();
  grpc::ClientContext context;
  Prepare(context, signed_snapshot.deal_commitment(), "cpp-forgery");
  samba::v1::ApplyActionResponse answer;
  const std::string decoded = Decode(stub.ApplyAction(&context, request, &answer));
  const bool refused = decoded.find("reason=SNAPSHOT_SIGNATURE_INVALID") != std::string::npos;
  Report("forgery", refused ? "" : decoded, decoded);
}

struct Table {
  Table(Adjudicator::Stub& stub_, std::string seed_, std::vector<std::string> contributions_)
      : stub(stub_), seed(std::move(seed_)), contributions(std::move(contributions_)) {}
  Adjudicator::Stub& stub;
  std::string seed;
  std::vector<std::string> contributions;
  samba::v1::DealResponse dealt;
  samba::v1::ApplyActionResponse answer;
  samba::v1::Snapshot snapshot;  // the table: full, kept by the game server only
  samba::v1::SeatView view;      // what seat 0's device is sent
  int moves = 0, computer_moves = 0, apply_calls = 0, list_calls = 0, views_checked = 0;
  std::string view_problem;
};

// What seat 0's view must hide and show (docs/api.md#what-a-view-hides), against the full
// snapshot of the same answer and its unredacted events.
std::string CheckView(const samba::v1::Snapshot& full, const samba::v1::SeatView& view,
                      const google::protobuf::RepeatedPtrField<samba::v1::Event>& events) {
  const auto& seen = view.snapshot();
  if (view.seat() != 0) return "the view is not seat 0's";
  if (seen.signature().rfind("v1.", 0) != 0) return "the view is not signed";
  if (!seen.stock().empty() || !seen.stock_hidden() || seen.stock_count() != full.stock_count()) {
    return "the stock is not hidden";
  }
  for (int s = 0; s < full.seats_size(); ++s) {
    const auto& mine = seen.seats(s);
    const bool own = s == 0;
    if (mine.hand_hidden() == own || mine.hand_count() != full.seats(s).hand_count()) {
      return "seat " + std::to_string(s) + ": handHidden or handCount";
    }
    if (!own && (!mine.hand().empty() || !mine.dealt().empty())) {
      return "seat " + std::to_string(s) + "'s cards shown";
    }
    if (own && mine.hand_size() != full.seats(s).hand_size()) return "seat 0's own hand";
  }
  if (view.events_size() != events.size()) return "events";
  for (int e = 0; e < events.size(); ++e) {
    const auto& event = view.events(e);
    const bool hidden = event.type() == samba::v1::Event::CARDS_DRAWN && event.seat() != 0;
    if (hidden && (!event.cards().empty() || event.card_count() != events[e].card_count())) {
      return "another seat's drawn cards shown";
    }
  }
  return "";
}

// Seat 0's move: the first listed action when drawing, a discard when playing, "yes" to
// its partner's question; further pages only when the first holds no discard.
samba::v1::Action ChooseForSeat0(Table& table) {
  const auto& next = table.answer.has_next_actions() ? table.answer.next_actions()
                                                     : table.dealt.next_actions();
  std::vector<samba::v1::Action> actions(next.actions().begin(), next.actions().end());
  std::string token = next.next_page_token();
  for (;;) {
    for (const auto& a : actions) {
      if (a.has_discard() || (a.has_answer_go_out() && a.answer_go_out().allow())) return a;
    }
    if (table.snapshot.turn().phase() == samba::v1::Turn::DRAW || token.empty()) {
      return actions.front();
    }
    samba::v1::ListLegalActionsRequest request;
    *request.mutable_snapshot() = table.snapshot;
    request.set_seat(0);
    request.set_page_token(token);
    samba::v1::ListLegalActionsResponse page;
    grpc::ClientContext context;
    Prepare(context, table.snapshot.deal_commitment(), "cpp-list");
    ++table.list_calls;
    if (!table.stub.ListLegalActions(&context, request, &page).ok()) return actions.front();
    actions.assign(page.actions().begin(), page.actions().end());
    token = page.next_page_token();
  }
}

bool Move(Table& table) {
  const int seat = table.snapshot.turn().awaiting_seats(0);
  samba::v1::ApplyActionRequest request;
  *request.mutable_snapshot() = table.snapshot;
  if (seat == 0) {
    *request.mutable_action() = ChooseForSeat0(table);
    request.mutable_action()->set_expected_ply(table.snapshot.ply());
  } else {
    auto* computer = request.mutable_computer();
    computer->set_seat(seat);
    computer->set_level(samba::v1::SuggestActionRequest::BASIC);
    computer->set_seed(table.seed + "/" + std::to_string(table.snapshot.ply()));
    ++table.computer_moves;
  }
  request.set_include_views(true);
  request.add_view_seats(0);  // the one person at the table
  request.set_include_legal_actions(true);
  grpc::ClientContext context;
  Prepare(context, table.snapshot.deal_commitment(), "cpp-move-" + std::to_string(table.moves));
  ++table.apply_calls;
  const grpc::Status status = table.stub.ApplyAction(&context, request, &table.answer);
  if (!status.ok()) {
    Report("move", Decode(status), "");
    return false;
  }
  if (!table.answer.legal()) {
    Report("move", "refused: " + table.answer.violations(0).code(), "");
    return false;
  }
  ++table.moves;
  table.snapshot = table.answer.snapshot();
  table.view = table.answer.views(0);
  const std::string problem = CheckView(table.snapshot, table.view, table.answer.events());
  if (!problem.empty() && table.view_problem.empty()) table.view_problem = problem;
  ++table.views_checked;
  return true;
}

bool Deal(Table& table) {
  samba::v1::DealRequest request;
  request.mutable_ruleset()->set_profile("classic");
  request.set_players(4);
  request.set_seed(table.seed);
  for (const auto& c : table.contributions) request.add_seed_contributions(c);
  request.set_include_views(true);
  request.add_view_seats(0);
  request.set_include_legal_actions(true);
  const std::string commitment = deal_check::Commitment(table.seed);  // shown to players first
  grpc::ClientContext context;
  Prepare(context, commitment, "cpp-deal");
  const grpc::Status status = table.stub.Deal(&context, request, &table.dealt);
  if (!status.ok()) {
    Report("deal", Decode(status), "");
    return false;
  }
  table.snapshot = table.dealt.snapshot();
  table.view = table.dealt.views(0);
  const bool signed_ = table.snapshot.signature().rfind("v1.", 0) == 0;
  Report("deal",
         table.snapshot.deal_commitment() != commitment ? "commitment differs"
         : signed_                                       ? ""
                                                         : "not signed",
         "players 4 commitment " + commitment);
  return table.snapshot.deal_commitment() == commitment;
}

void Play(Table& table) {
  while (table.snapshot.turn().phase() != samba::v1::Turn::OVER && table.moves < kMaxMoves) {
    if (!Move(table)) return;
  }
  const auto& score = table.answer.score();
  std::string totals;
  for (const auto& side : score.sides()) totals += " " + std::to_string(side.deal_total());
  Report("play",
         table.snapshot.turn().phase() == samba::v1::Turn::OVER ? "" : "the deal did not end",
         "moves " + std::to_string(table.moves) + " apply_calls " +
             std::to_string(table.apply_calls) + " computer_moves " +
             std::to_string(table.computer_moves) + " list_calls " +
             std::to_string(table.list_calls) + " result " +
             samba::v1::Result::Reason_Name(table.snapshot.result().reason()) + " totals" +
             totals);
  Report("views", table.view_problem, "checked " + std::to_string(table.views_checked));
}

std::string Problems(const std::vector<deal_check::Problem>& problems) {
  std::string out;
  for (const auto& p : problems) out += (out.empty() ? "" : " ") + p.field + "=" + p.reason;
  return out;
}

// The commit-reveal check: after the deal the server reveals the seed and the contributions,
// and anyone holding a snapshot of the deal checks it, here with no server and by VerifyDeal.
void Verify(Table& table) {
  const auto& first = table.dealt.snapshot();
  const auto& ruleset = table.dealt.ruleset();
  const auto local_first = deal_check::Verify(first, ruleset, table.seed, table.contributions);
  const auto local_view =
      deal_check::Verify(table.view.snapshot(), ruleset, table.seed, table.contributions);
  samba::v1::Snapshot forged = first;
  *forged.mutable_seats(1)->mutable_dealt()->Mutable(0) =
      forged.seats(1).dealt(0) == "AS" ? "KS" : "AS";
  const std::string caught =
      Problems(deal_check::Verify(forged, ruleset, table.seed, table.contributions));
  const std::string wrong_seed =
      Problems(deal_check::Verify(first, ruleset, table.seed + "x", table.contributions));
  Report("verify local",
         !local_first.empty()                                       ? Problems(local_first)
         : !local_view.empty()                                      ? Problems(local_view)
         : caught != "deal.seats[1].dealt=NOT_THE_SHUFFLE"           ? "forgery missed: " + caught
         : wrong_seed.find("COMMITMENT_MISMATCH") == std::string::npos ? "seed missed"
                                                                       : "",
         "first snapshot, seat 0's final view; forged dealt: " + caught);

  samba::v1::VerifyDealRequest request;
  *request.mutable_deal() = table.view.snapshot();  // what seat 0's device holds
  request.set_seed(table.seed);
  for (const auto& c : table.contributions) request.add_seed_contributions(c);
  samba::v1::VerifyDealResponse verified, refuted;
  grpc::ClientContext context, context_wrong;
  Prepare(context, first.deal_commitment(), "cpp-verify");
  Prepare(context_wrong, first.deal_commitment(), "cpp-verify-wrong");
  const grpc::Status ok = table.stub.VerifyDeal(&context, request, &verified);
  request.set_seed(table.seed + "x");
  const grpc::Status ok_wrong = table.stub.VerifyDeal(&context_wrong, request, &refuted);
  const bool right = ok.ok() && ok_wrong.ok() && verified.verified() && !refuted.verified() &&
                     refuted.problems(0).reason() == "COMMITMENT_MISMATCH";
  Report("verify server", right ? "" : Decode(ok) + Decode(ok_wrong),
         std::string("verified ") + (verified.verified() ? "true" : "false") +
             "; another seed: " + (refuted.problems_size() ? refuted.problems(0).reason() : ""));
}

void CheckVectors(Adjudicator::Stub& stub) {
  std::string problem = deal_check::CheckDocumentedVectors();
  samba::v1::GetRulesetRequest request;
  request.set_profile("classic");
  samba::v1::Ruleset classic;
  grpc::ClientContext context;
  Prepare(context, "", "cpp-ruleset");
  const grpc::Status status = stub.GetRuleset(&context, request, &classic);
  problem += status.ok() ? deal_check::CheckGoldenDeal(classic) : Decode(status);
  Report("vectors", problem, "docs/dealing.md sections 4 and 5");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: play_table HOST:PORT [SEED [DEAL_VECTORS_JSON]]" << std::endl;
    return 2;
  }
  auto stub = Adjudicator::NewStub(Connect(argv[1]));
  // A game server draws the seed with a CSPRNG; a fixed default keeps the example repeatable.
  Table table(*stub, argc > 2 ? argv[2] : "cpp-example-seed", {"ana", "bo", "cy", "di"});
  CheckVectors(*stub);
  if (argc > 3) {
    int answered = 0, refusals = 0;
    const std::string bad = deal_check::CheckVectorFile(argv[3], &answered, &refusals);
    Report("deal vectors", answered ? bad : "none read",
           std::to_string(answered) + " requests answered as the service did, " +
               std::to_string(refusals) + " refusals not checked");
  }
  DecodeRichError(*stub);
  if (Deal(table)) {
    RefuseForgery(*stub, table.snapshot);
    Play(table);
    Verify(table);
  }
  std::cout << (failures ? "FAILED" : "all ok") << std::endl;
  return failures ? 1 : 0;
}
