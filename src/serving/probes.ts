/**
 * Probes (serving `k8s_validation.go`: validateProbe, validateReadinessProbe, the probe part of
 * validateSidecarContainer; `fieldmask.go`: ProbeMask, HandlerMask and the handler action masks), rules in
 * docs/knative-behavior.md#probes.
 */
import {
  also,
  errGeneric,
  errInvalidValue,
  errMissingOneOf,
  errMultipleOneOf,
  errOutOfBoundsValue,
  viaField,
  type FieldError,
} from "../apis/field-error.js";
import { DEFAULT_KNATIVE_VERSION, PROFILES, type ProbeRules } from "../config/profile.js";
import { checkDisallowedFields, defineMask, numberField, objectField, type JsonObject } from "./field-mask.js";
import { goIntOrString } from "../go/encoding/json/index.js";

const MAX_INT32 = 2147483647;

// ProbeMask copies the embedded ProbeHandler and the timings; terminationGracePeriodSeconds from v0.48.0
// (ProbeRules.terminationGracePeriodSeconds).
const PROBE_FIELDS = ["exec", "httpGet", "tcpSocket", "grpc", "initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold"];
const PROBE_MASK = defineMask("core.Probe", PROBE_FIELDS, { inlineFrom: "core.ProbeHandler" });
const PROBE_MASK_WITH_GRACE = defineMask("core.Probe", [...PROBE_FIELDS, "terminationGracePeriodSeconds"], { inlineFrom: "core.ProbeHandler" });
// `ProbeMask(&corev1.Probe{})`: every set field of a sidecar probe is disallowed; the handler reports as "".
const EMPTY_PROBE_MASK = defineMask("core.Probe", [], { inlineFrom: "core.ProbeHandler" });
const HANDLER_MASK = defineMask("core.ProbeHandler", ["exec", "httpGet", "tcpSocket", "grpc"]);
const HTTP_GET_ACTION_MASK = defineMask("core.HTTPGetAction", ["host", "path", "scheme", "httpHeaders", "port"]);
const TCP_SOCKET_ACTION_MASK = defineMask("core.TCPSocketAction", ["host", "port"]);
const EXEC_ACTION_MASK = defineMask("core.ExecAction", ["command"]);
const GRPC_ACTION_MASK = defineMask("core.GRPCAction", ["port", "service"]);

/**
 * The port probes are checked against: the user container's serving port name (`http` when unnamed), or
 * undefined for sidecar probes (multi-container-probing), which must name a port instead.
 */
export type ProbePort = string | undefined;

/**
 * validateProbe. Quirk kept from Go: after each handler present, everything accumulated so far is re-prefixed
 * with that handler's name (`errs.Also(mask).ViaField("httpGet")`), so with two handlers an earlier error
 * renders as e.g. `tcpSocket.httpGet.port`.
 */
export function validateProbe(p: JsonObject | undefined, servingPortName: ProbePort, rules: ProbeRules = PROFILES[DEFAULT_KNATIVE_VERSION].probes): FieldError | undefined {
  if (p === undefined) return undefined;
  let errs = checkDisallowedFields(p, rules.terminationGracePeriodSeconds ? PROBE_MASK_WITH_GRACE : PROBE_MASK);
  errs = also(errs, checkDisallowedFields(p, HANDLER_MASK));
  let handlers: string[] | undefined;

  const httpGet = objectField(p, "httpGet");
  if (httpGet !== undefined) {
    (handlers ??= []).push("httpGet");
    errs = viaField(also(errs, checkDisallowedFields(httpGet, HTTP_GET_ACTION_MASK)), "httpGet");
    errs = also(errs, checkProbePort(httpGet, "httpGet.port", servingPortName));
  }
  const tcpSocket = objectField(p, "tcpSocket");
  if (tcpSocket !== undefined) {
    (handlers ??= []).push("tcpSocket");
    errs = viaField(also(errs, checkDisallowedFields(tcpSocket, TCP_SOCKET_ACTION_MASK)), "tcpSocket");
    errs = also(errs, checkProbePort(tcpSocket, "tcpSocket.port", servingPortName));
  }
  const exec = objectField(p, "exec");
  if (exec !== undefined) {
    (handlers ??= []).push("exec");
    errs = viaField(also(errs, checkDisallowedFields(exec, EXEC_ACTION_MASK)), "exec");
  }
  const grpc = objectField(p, "grpc");
  if (grpc !== undefined) {
    (handlers ??= []).push("gRPC");
    errs = viaField(also(errs, checkDisallowedFields(grpc, GRPC_ACTION_MASK)), "grpc");
  }

  if (handlers === undefined) errs = also(errs, errMissingOneOf("httpGet", "tcpSocket", "exec", "grpc"));
  else if (handlers.length > 1) errs = also(errs, errMultipleOneOf(...handlers));
  return errs;
}

/**
 * User containers: a named port must be the serving port's name (integer ports are never checked).
 * Sidecars: the port must be given, by name or as a non-zero number.
 */
function checkProbePort(action: JsonObject, path: string, servingPortName: ProbePort): FieldError | undefined {
  const port = action["port"];
  // intstr.IntOrString: a JSON string is StrVal, a number IntVal; a repeated `port` key may have left the other half
  // set too (decode.ts intOrStringHalves). IntOrString.String() prints the half its Type names.
  const { strVal, intVal } = goIntOrString(action, "port");
  const shown = typeof port === "string" ? port : String(intVal);
  if (servingPortName !== undefined) {
    if (strVal !== "" && strVal !== servingPortName) {
      return errInvalidValue(shown, path, "Probe port must match container port");
    }
    return undefined;
  }
  if (strVal === "" && intVal === 0) {
    return errInvalidValue(shown, path, "Probe port must be specified");
  }
  return undefined;
}

/** validateReadinessProbe: validateProbe plus Knative's timing rules (`periodSeconds: 0` = aggressive probing). */
export function validateReadinessProbe(p: JsonObject | undefined, servingPortName: ProbePort, rules: ProbeRules = PROFILES[DEFAULT_KNATIVE_VERSION].probes): FieldError | undefined {
  if (p === undefined) return undefined;
  let errs = validateProbe(p, servingPortName, rules);
  const periodSeconds = numberField(p, "periodSeconds");
  const initialDelaySeconds = numberField(p, "initialDelaySeconds");
  const successThreshold = numberField(p, "successThreshold");
  const timeoutSeconds = numberField(p, "timeoutSeconds");
  const failureThreshold = numberField(p, "failureThreshold");

  if (periodSeconds < 0) errs = also(errs, errOutOfBoundsValue(periodSeconds, 0, MAX_INT32, "periodSeconds"));
  if (initialDelaySeconds < 0) {
    errs = also(errs, errOutOfBoundsValue(initialDelaySeconds, 0, MAX_INT32, "initialDelaySeconds"));
  }
  if (successThreshold < 1) errs = also(errs, errOutOfBoundsValue(successThreshold, 1, MAX_INT32, "successThreshold"));

  if (periodSeconds === 0) {
    if (failureThreshold !== 0) {
      errs = also(errs, errGeneric("failureThreshold is disallowed when periodSeconds is zero", "failureThreshold"));
    }
    if (timeoutSeconds !== 0) {
      errs = also(errs, errGeneric("timeoutSeconds is disallowed when periodSeconds is zero", "timeoutSeconds"));
    }
  } else {
    if (timeoutSeconds < 1) errs = also(errs, errOutOfBoundsValue(timeoutSeconds, 1, MAX_INT32, "timeoutSeconds"));
    if (failureThreshold < 1) errs = also(errs, errOutOfBoundsValue(failureThreshold, 1, MAX_INT32, "failureThreshold"));
  }
  return errs;
}

/** A sidecar's probe with multi-container-probing off: every set field is disallowed. */
export function checkSidecarProbeDisallowed(p: JsonObject | undefined): FieldError | undefined {
  return p === undefined ? undefined : checkDisallowedFields(p, EMPTY_PROBE_MASK);
}
