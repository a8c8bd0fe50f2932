// @samba-adjudicator/client: the REST client (browsers and Node), the generated message
// types of samba.v1, and the error type. The gRPC client (Node) is in "./grpc".
export { createRestClient, type RestClientOptions } from "./rest.js";
export {
  DEFAULT_TIMEOUT_MS,
  createAdjudicatorClient,
  iterLegalActions,
  newRequestId,
  type AdjudicatorClient,
  type CallOptions,
  type ClientOptions,
} from "./client.js";
export {
  DEFAULT_RETRY,
  NO_RETRY,
  UNTIMED_ATTEMPTS,
  backoffCapMs,
  retryFromServiceConfig,
  withRetry,
  type RetryPolicy,
  type ServiceConfig,
} from "./retry.js";
export { TABLE_HEADER, tableKey } from "./tables.js";
export { AdjudicatorError, STATUS_NAMES, type FieldViolation, type StatusName } from "./errors.js";
export * from "./gen/samba/v1/adjudicator_pb.js";
export * from "./gen/samba/v1/action_pb.js";
export * from "./gen/samba/v1/ruleset_pb.js";
export * from "./gen/samba/v1/snapshot_pb.js";
// The protobuf-es functions a caller needs with these types; `toJson` writes zero values,
// as REST does (./json.ts).
export { create, fromJson, fromBinary, toBinary, equals, clone } from "@bufbuild/protobuf";
export { toJson } from "./json.js";
export { dealCommitment, shuffleSeed, shuffledPack, dealtHands, dealtPosition, verifyDeal, type DealCheck, type DealProblem, type DealtPosition } from "./dealCheck.js";
