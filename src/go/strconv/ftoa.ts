// strconv.FormatFloat(v, 'g', -1, 64) as fmt's %v prints a float64 (golang/go src/strconv/ftoa.go, src/fmt/format.go).

/**
 * Go's `%v` of a float64 (`strconv.FormatFloat(v, 'g', -1, 64)` plus fmt's `+Inf`): shortest
 * round-trip digits, exponent form when the exponent is < -4 or >= 6 (`1e-05`, `1.5e+06`, `1e+21`).
 */
export function goFormatFloat(v: number): string {
  if (Number.isNaN(v)) return "NaN";
  if (v === Infinity) return "+Inf";
  if (v === -Infinity) return "-Inf";
  if (v === 0) return Object.is(v, -0) ? "-0" : "0";
  const neg = v < 0;
  // JS and Go both produce the shortest digit string that round-trips.
  const sci = (neg ? -v : v).toExponential();
  const e = sci.indexOf("e");
  const mantissa = sci.slice(0, e);
  const exp = Number(sci.slice(e + 1));
  const digits = mantissa.length > 1 ? mantissa.charAt(0) + mantissa.slice(2) : mantissa;
  let out: string;
  if (exp < -4 || exp >= 6) {
    const abs = exp < 0 ? -exp : exp;
    out =
      (digits.length > 1 ? digits.charAt(0) + "." + digits.slice(1) : digits) +
      (exp < 0 ? "e-" : "e+") +
      (abs < 10 ? "0" + abs : String(abs));
  } else {
    const dp = exp + 1;
    if (dp <= 0) out = "0." + "0".repeat(-dp) + digits;
    else if (digits.length <= dp) out = digits + "0".repeat(dp - digits.length);
    else out = digits.slice(0, dp) + "." + digits.slice(dp);
  }
  return neg ? "-" + out : out;
}
