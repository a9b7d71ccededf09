import { describe, expect, it } from "vitest";
import type { Principal } from "#shared/auth/authenticate.ts";
import { authorizeDesigns, operationScopes } from "#shared/auth/design-access.ts";
import { checkDesignText } from "#shared/designs/design-text.ts";
import { detailMessage } from "#shared/errors/error-body.ts";
import { isPlatenError } from "#shared/errors/platen-error.ts";
import type { Workspace } from "#shared/workspaces/workspace-store.ts";

/** Sharing's scopes (shared/authoring/README.md#who-may-call-it) and the one label schema. */

const workspace = { id: "W0000000000000001" } as Workspace;
const clientToken = (...scopes: string[]): Principal => ({
  workspace,
  method: "bearer",
  clientId: "ci",
  grant: "client_credentials",
  scopes,
});

const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (err) {
    if (isPlatenError(err)) return { code: err.code, details: err.details.map((d) => detailMessage(d, "en")) };
    throw err;
  }
  return undefined;
};

describe("sharing a template needs templates:write and a scope that reads designs", () => {
  it("templates:write alone is refused, naming the missing scopes; designs:read or designs:write completes it", () => {
    expect(refusal(() => authorizeDesigns(clientToken("templates:write"), "templates:share"))).toEqual({
      code: "INVALID_CREDENTIALS",
      details: ["the access token lacks the designs:read or designs:write scope"],
    });
    expect(refusal(() => authorizeDesigns(clientToken("designs:write"), "templates:share"))?.details).toEqual([
      "the access token lacks the templates:write scope",
    ]);
    for (const reader of ["designs:read", "designs:write"])
      expect(authorizeDesigns(clientToken("templates:write", reader), "templates:share").workspaceId).toBe(
        workspace.id,
      );
    // Withdrawing reads nothing: templates:write alone still does it.
    expect(authorizeDesigns(clientToken("templates:write"), "templates:write").workspaceId).toBe(workspace.id);
  });

  it("lists every way of holding the scopes for the OpenAPI document", () => {
    expect(operationScopes("templates:share")).toEqual([
      "templates:write designs:read",
      "templates:write designs:write",
    ]);
    expect(operationScopes("designs:read")).toEqual(["designs:read", "designs:write"]);
    expect(operationScopes("templates:write")).toEqual(["templates:write"]);
  });
});

describe("one label schema", () => {
  it("trims, and takes 1 to 200 characters; a description at most 2,000", () => {
    expect(checkDesignText({ label: "  Invoice  " })).toEqual({ label: "Invoice" });
    expect(checkDesignText({ label: "x".repeat(200), description: "d".repeat(2000) }).label).toHaveLength(200);
    const fields = (fields: { label?: unknown; description?: unknown }) =>
      (refusal(() => checkDesignText(fields)) as { code: string } | undefined)?.code;
    expect(fields({ label: "x".repeat(300_000) })).toBe("VALIDATION_FAILED");
    expect(fields({ label: "   " })).toBe("VALIDATION_FAILED");
    expect(fields({ label: 7 })).toBe("VALIDATION_FAILED");
    expect(fields({ description: "d".repeat(2001) })).toBe("VALIDATION_FAILED");
  });

  it("names the field in English and Japanese", () => {
    try {
      checkDesignText({ label: "x".repeat(201) });
      expect.unreachable();
    } catch (err) {
      if (!isPlatenError(err)) throw err;
      expect(err.details).toEqual([
        expect.objectContaining({ field: "label", text: { en: expect.any(String), ja: expect.any(String) } }),
      ]);
      expect(detailMessage(err.details[0]!, "ja")).not.toBe(detailMessage(err.details[0]!, "en"));
    }
  });
});
