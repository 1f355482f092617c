/**
 * quantity.ts and validation.ts against k8s.io/apimachinery v0.31.4 itself (resource.ParseQuantity, String(), Cmp;
 * util/validation's name checks and api/validation's NameIsDNS1035Label): every case of
 * test/fixtures/go-ports/apimachinery/cases.json with the answer Go gave (expected.json, written by main.go there).
 * To regenerate:
 *
 *   cd test/fixtures/go-ports/apimachinery && GOTOOLCHAIN=go1.23.12 go run . > expected.json
 */
import { describe, expect } from "vitest";
import { answerOf, eachUpstreamCase, loadUpstream, type Answer } from "../../../test/fixtures/go-ports/load.js";
import { compareQuantities, formatQuantity, parseQuantity, type Quantity } from "./quantity.js";
import * as validation from "./validation.js";

type Validator = "IsDNS1123Label" | "IsDNS1123Subdomain" | "IsDNS1035Label" | "IsQualifiedName" | "IsCIdentifier" | "IsFullyQualifiedDomainName";

type Case = { op: "Quantity"; s: string } | { op: "Cmp"; a: string; b: string } | { op: Validator; s: string } | { op: "NameIsDNS1035Label"; s: string; prefix: boolean };

const VALIDATORS: Readonly<Record<Validator, (s: string) => string[]>> = {
  IsDNS1123Label: validation.isDNS1123Label,
  IsDNS1123Subdomain: validation.isDNS1123Subdomain,
  IsDNS1035Label: validation.isDNS1035Label,
  IsQualifiedName: validation.isQualifiedName,
  IsCIdentifier: validation.isCIdentifier,
  // main.go's field path: DomainMapping passes "name".
  IsFullyQualifiedDomainName: (s) => validation.isFullyQualifiedDomainName(s, "name"),
};

function quantity(s: string): Quantity {
  const r = parseQuantity(s);
  if (!r.ok) throw new Error(r.error);
  return r.quantity;
}

/** What main.go writes: String() of the quantity, Cmp's -1 / 0 / 1, or the messages of a validator. */
function port(c: Case): Answer<string | number | string[]> {
  switch (c.op) {
    case "Quantity":
      return answerOf(parseQuantity(c.s), (r) => formatQuantity(r.quantity));
    case "Cmp":
      return { value: compareQuantities(quantity(c.a), quantity(c.b)) };
    case "NameIsDNS1035Label":
      return { value: validation.nameIsDNS1035Label(c.s, c.prefix) };
    default:
      return { value: VALIDATORS[c.op](c.s) };
  }
}

describe("apimachinery against k8s.io/apimachinery v0.31.4 (test/fixtures/go-ports/apimachinery)", () => {
  eachUpstreamCase(loadUpstream<Case, Answer>("apimachinery"), (c, want) => expect(port(c)).toEqual(want));
});
