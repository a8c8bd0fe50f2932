// One error type for every transport: the service's AIP-193 status, decoded.
import { fromJson, type JsonObject } from "@bufbuild/protobuf";
import {
  BadRequestSchema,
  ErrorInfoSchema,
  type BadRequest,
  type ErrorInfo,
} from "./gen/google/rpc/error_details_pb.js";

/** Canonical status names, indexed by gRPC status code (google.rpc.Code). */
export const STATUS_NAMES = [
  "OK",
  "CANCELLED",
  "UNKNOWN",
  "INVALID_ARGUMENT",
  "DEADLINE_EXCEEDED",
  "NOT_FOUND",
  "ALREADY_EXISTS",
  "PERMISSION_DENIED",
  "RESOURCE_EXHAUSTED",
  "FAILED_PRECONDITION",
  "ABORTED",
  "OUT_OF_RANGE",
  "UNIMPLEMENTED",
  "INTERNAL",
  "UNAVAILABLE",
  "DATA_LOSS",
  "UNAUTHENTICATED",
] as const;

export type StatusName = (typeof STATUS_NAMES)[number];

/** One problem of an invalid request (google.rpc.BadRequest.FieldViolation). */
export interface FieldViolation {
  /** Path in the request, JSON names: `snapshot.seats[0].hand[3]`, `cards[1]`. */
  field: string;
  /** Stable UPPER_SNAKE reason: `UNKNOWN_CARD_CODE`, `REQUIRED`, … */
  reason: string;
  /** For people, in the call's language (the `locale` option; English by default). */
  description: string;
}

export interface AdjudicatorErrorInit {
  status: StatusName;
  message: string;
  reason?: string;
  domain?: string;
  requestId?: string;
  metadata?: Record<string, string>;
  fieldViolations?: FieldViolation[];
  httpStatus?: number;
  cause?: unknown;
}

/**
 * A call that did not succeed. An illegal action is NOT an error (the answer says
 * `legal: false`); this is a refused request (AIP-193): bad input, unknown profile,
 * deadline, signature, transport failure.
 */
export class AdjudicatorError extends Error {
  override readonly name = "AdjudicatorError";
  /** Canonical status: `INVALID_ARGUMENT`, `NOT_FOUND`, `DEADLINE_EXCEEDED`, … */
  readonly status: StatusName;
  /** The same status as a gRPC code number (3 for INVALID_ARGUMENT). */
  readonly grpcCode: number;
  /** ErrorInfo.reason (`INVALID_REQUEST`, `UNKNOWN_PROFILE`, …); empty when none came. */
  readonly reason: string;
  /** ErrorInfo.domain: `samba.v1` for the service's own errors. */
  readonly domain: string;
  /** The request id of the call (ErrorInfo metadata `requestId`, else the one sent). */
  readonly requestId: string;
  /** ErrorInfo.metadata. */
  readonly metadata: Readonly<Record<string, string>>;
  /** Every problem of an invalid argument (BadRequest), in the server's order. */
  readonly fieldViolations: readonly FieldViolation[];
  /** REST only: the HTTP status of the answer. */
  readonly httpStatus: number | undefined;

  constructor(init: AdjudicatorErrorInit) {
    const reason = init.reason ?? "";
    super(`${init.status}${reason ? ` ${reason}` : ""}: ${init.message}`, { cause: init.cause });
    this.status = init.status;
    this.grpcCode = STATUS_NAMES.indexOf(init.status);
    this.reason = reason;
    this.domain = init.domain ?? "";
    this.metadata = init.metadata ?? {};
    this.requestId = init.requestId ?? this.metadata["requestId"] ?? "";
    this.fieldViolations = init.fieldViolations ?? [];
    this.httpStatus = init.httpStatus;
  }
}

/** The parts of an error both transports decode from google.rpc error details. */
export function detailsInit(
  info: ErrorInfo | undefined,
  badRequests: BadRequest[],
): Pick<AdjudicatorErrorInit, "reason" | "domain" | "metadata" | "requestId" | "fieldViolations"> {
  return {
    reason: info?.reason ?? "",
    domain: info?.domain ?? "",
    metadata: info ? { ...info.metadata } : {},
    requestId: info?.metadata["requestId"],
    fieldViolations: badRequests.flatMap((b) =>
      b.fieldViolations.map((v) => ({ field: v.field, reason: v.reason, description: v.description })),
    ),
  };
}

const HTTP_STATUS: Record<number, StatusName> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  409: "ABORTED",
  413: "RESOURCE_EXHAUSTED",
  429: "RESOURCE_EXHAUSTED",
  499: "CANCELLED",
  501: "UNIMPLEMENTED",
  502: "UNAVAILABLE",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
};

function isStatusName(value: unknown): value is StatusName {
  return typeof value === "string" && (STATUS_NAMES as readonly string[]).includes(value);
}

const ERROR_INFO_TYPE = "type.googleapis.com/google.rpc.ErrorInfo";
const BAD_REQUEST_TYPE = "type.googleapis.com/google.rpc.BadRequest";

/**
 * The REST error body (`{"error": {code, status, message, details}}`), decoded with the
 * library's proto3 JSON mapping of the google.rpc detail types. A body that is not the
 * service's (a proxy's HTML page) still gives a status from the HTTP code.
 */
export function errorFromRestBody(
  httpStatus: number,
  body: unknown,
  requestId: string,
): AdjudicatorError {
  const error = (body as { error?: JsonObject } | undefined)?.error;
  const fallback: StatusName = HTTP_STATUS[httpStatus] ?? (httpStatus >= 500 ? "INTERNAL" : "UNKNOWN");
  if (!error || typeof error !== "object") {
    return new AdjudicatorError({
      status: fallback,
      message: `HTTP ${httpStatus} without an error body`,
      requestId,
      httpStatus,
    });
  }
  let info: ErrorInfo | undefined;
  const badRequests: BadRequest[] = [];
  for (const detail of Array.isArray(error["details"]) ? error["details"] : []) {
    if (!detail || typeof detail !== "object" || Array.isArray(detail)) continue;
    const { "@type": type, ...fields } = detail;
    try {
      if (type === ERROR_INFO_TYPE) info = fromJson(ErrorInfoSchema, fields, { ignoreUnknownFields: true });
      if (type === BAD_REQUEST_TYPE) badRequests.push(fromJson(BadRequestSchema, fields, { ignoreUnknownFields: true }));
    } catch {
      // A detail we cannot read must not hide the status and message.
    }
  }
  const decoded = detailsInit(info, badRequests);
  return new AdjudicatorError({
    status: isStatusName(error["status"]) ? error["status"] : fallback,
    message: typeof error["message"] === "string" ? error["message"] : `HTTP ${httpStatus}`,
    ...decoded,
    requestId: decoded.requestId ?? requestId,
    httpStatus,
  });
}
