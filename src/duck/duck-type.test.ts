import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";
import { DUCK_AJV_OPTIONS } from "./duck-type.js";
import { Conditions, Generational, KResource, WithPod } from "./index.js";

// defineDuck compiles without the meta-schema check (startup cost); this is that check.
describe("the duck schemas", () => {
  const ajv = new Ajv(DUCK_AJV_OPTIONS);
  it.each([KResource, Conditions, Generational, WithPod].map((d) => [d.name, d] as const))("%s is a valid JSON Schema under strict mode", (_, duck) => {
    expect(ajv.validateSchema(duck.schema)).toBe(true);
    expect(ajv.errors ?? null).toBeNull();
    expect(() => ajv.compile(duck.schema)).not.toThrow();
  });

  it("the check would catch an invalid schema", () => {
    expect(ajv.validateSchema({ type: "object", properties: { a: { type: "no-such-type" } } })).toBe(false);
  });
});
