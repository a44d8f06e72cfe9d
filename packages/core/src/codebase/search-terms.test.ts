import { describe, expect, it } from "vitest";
import { identifierTerms, queryTerms, splitIdentifier, termFrequencies } from "./search-terms.js";

describe("tokens", () => {
  it("splits identifiers on case, digits and underscores", () => {
    expect(splitIdentifier("parseHTTPRequest_v2")).toEqual(["parse", "http", "request", "v", "2"]);
    expect(splitIdentifier("MAX_RETRY_COUNT")).toEqual(["max", "retry", "count"]);
    expect(splitIdentifier("snake_case_name")).toEqual(["snake", "case", "name"]);
  });

  it("keeps the whole identifier as a term beside its parts", () => {
    expect(identifierTerms("getUserName")).toEqual(["get", "user", "name", "getusername"]);
    expect(identifierTerms("user")).toEqual(["user"]);
  });

  it("counts terms of a text and dedupes query terms", () => {
    const tf = termFrequencies("const userName = user.name; // the user");
    expect(tf.get("user")).toBe(3);
    expect(tf.get("username")).toBe(1);
    expect(queryTerms("user name userName")).toEqual(["user", "name", "username"]);
  });
});
