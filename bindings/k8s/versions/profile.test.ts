import { describe, expect, it } from "vitest";
import { parseFixOverrides, resolveProfile } from "./profile.js";

describe("version profiles", () => {
  it("fixes follow master releases and backports", () => {
    expect(resolveProfile("1.22.3").fix["104526"]).toBe(false);
    expect(resolveProfile("1.22.4").fix["104526"]).toBe(true);
    expect(resolveProfile("1.21.7").fix["104526"]).toBe(true);
    expect(resolveProfile("1.23").fix["104526"]).toBe(true);
    expect(resolveProfile("1.22.13").fix["107025"]).toBe(false);
    expect(resolveProfile("1.22.14").fix["107025"]).toBe(true);
    expect(resolveProfile("1.24").fix["108997"]).toBe(false);
    expect(resolveProfile("1.25").fix["108997"]).toBe(true);
    expect(resolveProfile("1.15").fix["79940"]).toBe(false);
    expect(resolveProfile("1.31").fix["disable-force-detach-on-timeout"]).toBe(false);
  });
  it("a named switch overrides the version", () => {
    expect(resolveProfile("1.22", parseFixOverrides(["104526=on"])).fix["104526"]).toBe(true);
    expect(resolveProfile("1.25", parseFixOverrides(["108997=off"])).fix["108997"]).toBe(false);
    expect(() => parseFixOverrides(["12345=on"])).toThrow(/bad --fix/);
    expect(() => resolveProfile("1.9")).toThrow(/outside the modelled range/);
  });
});
