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
  it("#108167 was picked to 1.23.5, 1.22.8 and 1.21.13 (cherry-picks #108461, #108462, #109206)", () => {
    expect(resolveProfile("1.22.7").fix["108167"]).toBe(false);
    expect(resolveProfile("1.22.8").fix["108167"]).toBe(true);
    expect(resolveProfile("1.22.8").perNodeStatusUpdate).toBe(true);
    expect(resolveProfile("1.23.4").fix["108167"]).toBe(false);
    expect(resolveProfile("1.23.5").fix["108167"]).toBe(true);
    expect(resolveProfile("1.21.13").fix["108167"]).toBe(true);
    expect(resolveProfile("1.22").fix["108167"]).toBe(false);
  });
  it("#111205 (re-add after a failed node status update) and #110951 (pending match first) follow their cherry-picks", () => {
    const readd = (v: string) => resolveProfile(v).reAddOnStatusUpdateFailure;
    expect([readd("1.22.13"), readd("1.22.14"), readd("1.23.11"), readd("1.24.4"), readd("1.24.5"), readd("1.25.0"), readd("1.25.1"), readd("1.26")]).toEqual([false, true, true, false, true, false, true, true]);
    const first = (v: string) => resolveProfile(v).npoPendingFirst;
    expect([first("1.22.14"), first("1.23.10"), first("1.23.11"), first("1.24.5"), first("1.25.0"), first("1.25.1"), first("1.31")]).toEqual([false, false, true, true, false, true, true]);
  });
});

