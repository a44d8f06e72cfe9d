import type { OpenApiSpecView } from "@arbor/core/browser";
import { render, screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { OpenApiSpecList } from "./openapi-specs.js";

const specs: OpenApiSpecView[] = [
  {
    index: 0,
    spec: "apis/petstore.yaml",
    title: "Swagger Petstore",
    status: "loaded",
    warnings: [
      "POST /pet/{petId}/uploadImage: its optional application/octet-stream request body is not sent (only JSON is)",
    ],
    base_url: "http://127.0.0.1:9/v2",
    auth: { type: "api_key", env: "PETSTORE_KEY", set: true },
    tools: [
      { name: "getPetById", method: "GET", path: "/pet/{petId}", description: "Find pet by ID" },
    ],
  },
  {
    index: 1,
    spec: "https://api.example.com/openapi.json",
    status: "failed",
    error: "GET https://api.example.com/openapi.json answered 404",
    warnings: [],
    auth: { type: "bearer", env: "EXAMPLE_TOKEN", set: false },
    tools: [],
  },
];

describe("OpenApiSpecList", () => {
  it("shows each spec's status, credential variable (never a value), error, warnings and tools", () => {
    render(<OpenApiSpecList specs={specs} />);
    const items = screen.getAllByTestId("openapi-spec");
    expect(items.map((item) => item.dataset.status)).toEqual(["loaded", "failed"]);
    const petstore = items[0] as HTMLElement;
    expect(within(petstore).getByText("Swagger Petstore")).toBeTruthy();
    expect(within(petstore).getByTestId("openapi-auth").textContent).toBe("PETSTORE_KEY set");
    expect(within(petstore).getByText("getPetById")).toBeTruthy();
    expect(within(petstore).getByText("1 warning")).toBeTruthy();
    const failed = items[1] as HTMLElement;
    expect(within(failed).getByTestId("openapi-error").textContent).toContain("answered 404");
    expect(within(failed).getByTestId("openapi-auth").textContent).toBe("EXAMPLE_TOKEN not set");
  });

  it("says where to list specs when there are none", () => {
    render(<OpenApiSpecList specs={[]} />);
    expect(screen.getByTestId("openapi-specs-empty").textContent).toContain(".arbor/openapi.json");
  });
});
