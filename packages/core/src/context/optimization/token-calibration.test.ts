import { describe, expect, it } from "vitest";
import { emptyUsage } from "../../model/llm-messages.js";
import { TokenCalibration } from "./token-calibration.js";

describe("TokenCalibration", () => {
  it("scales estimates by the provider's last figure; the window shrinks in estimated tokens", () => {
    const calibration = new TokenCalibration();
    expect(calibration.source).toBe("estimate");
    expect(calibration.scale(1000)).toBe(1000);
    calibration.expect(1000);
    calibration.observeUsage({ ...emptyUsage(), input: 200, cacheRead: 1000, cacheWrite: 50 });
    expect(calibration.source).toBe("provider_usage");
    expect(calibration.ratio).toBe(1.25);
    expect(calibration.scale(400)).toBe(500);
    expect(calibration.unscale(100_000)).toBe(80_000);
  });

  it("a usage without a prepared request, or an absurd one, changes nothing", () => {
    const calibration = new TokenCalibration();
    calibration.observeUsage({ ...emptyUsage(), input: 500 });
    expect(calibration.ratio).toBe(1);
    calibration.expect(1000);
    calibration.observeUsage({ ...emptyUsage(), input: 10 });
    expect(calibration.ratio).toBe(1);
    expect(calibration.source).toBe("estimate");
  });

  it("an exact count is not overwritten by the usage of the same request", () => {
    const calibration = new TokenCalibration();
    calibration.observe(1000, 1100, "provider_count");
    calibration.expect(1000);
    calibration.observeUsage({ ...emptyUsage(), input: 1500 });
    expect(calibration.ratio).toBeCloseTo(1.1);
    expect(calibration.source).toBe("provider_count");
  });
});
