import { afterAll, describe, expect, it } from "vitest";
import { pgAvailable, testDatabases } from "../test/stores.js";
import { PeopleStore } from "./people-store.js";

// The people store on both databases: the owner made once, tokens, invitations used once,
// session access, links and the failure windows that the sign-in limit counts across instances.

for (const provider of ["sqlite", "postgresql"] as const) {
  describe.skipIf(provider === "postgresql" && !pgAvailable())(`PeopleStore (${provider})`, () => {
    const databases = testDatabases(provider);
    afterAll(() => databases.dispose());
    const open = async (now?: () => Date) => {
      const created = await databases.store(now === undefined ? {} : { now });
      return new PeopleStore(created.db, now === undefined ? {} : { now });
    };

    it("makes the owner once, even when two starts race", async () => {
      const people = await open();
      const [a, b] = await Promise.all([
        people.ensureOwner({ name: "Owner", email: "Owner@Local" }),
        people.ensureOwner({ name: "Other", email: "other@local" }),
      ]);
      expect(a.id).toBe(b.id);
      expect((await people.people()).filter((p) => p.role === "owner")).toHaveLength(1);
      expect((await people.personByEmail("OWNER@local"))?.id ?? a.id).toBe(a.id);
    });

    it("keeps tokens by hash, touches and revokes them", async () => {
      const people = await open();
      const owner = await people.ensureOwner({ name: "Owner", email: "o@x" });
      const made = await people.createToken({
        userId: owner.id,
        name: "ci",
        scope: "read",
        hash: "h1",
        prefix: "arb_abc",
        expiresAt: null,
      });
      expect(made).not.toHaveProperty("hash");
      expect((await people.tokenByHash("h1"))?.id).toBe(made.id);
      await people.touchToken(made.id);
      expect((await people.tokens(owner.id))[0]?.lastUsedAt).not.toBeNull();
      expect(await people.revokeToken("someone-else", made.id)).toBe(false);
      expect(await people.revokeToken(owner.id, made.id)).toBe(true);
      expect(await people.revokeToken(owner.id, made.id)).toBe(false);
      expect((await people.tokenByHash("h1"))?.revokedAt).not.toBeNull();
    });

    it("uses an invitation once, and never after it expired", async () => {
      let now = new Date("2026-01-01T00:00:00Z");
      const people = await open(() => now);
      const invite = await people.createInvitation({
        hash: "inv",
        email: "Ana@X",
        role: "member",
        createdBy: "owner",
        expiresAt: "2026-01-02T00:00:00.000Z",
      });
      expect(invite.email).toBe("ana@x");
      expect((await people.openInvitation("inv"))?.id).toBe(invite.id);
      const both = await Promise.all([
        people.consumeInvitation(invite.id, "u1"),
        people.consumeInvitation(invite.id, "u2"),
      ]);
      expect(both.filter(Boolean)).toHaveLength(1);
      expect(await people.openInvitation("inv")).toBeUndefined();
      const late = await people.createInvitation({
        hash: "late",
        email: null,
        role: "viewer",
        createdBy: "owner",
        expiresAt: "2026-01-01T01:00:00.000Z",
      });
      now = new Date("2026-01-01T02:00:00Z");
      expect(await people.openInvitation("late")).toBeUndefined();
      expect(await people.consumeInvitation(late.id, "u3")).toBe(false);
    });

    it("grants, lists and revokes session access; the owner's row stays", async () => {
      const people = await open();
      await people.grant({ sessionId: "s1", userId: "a", relation: "owner", grantedBy: "a" });
      await people.grant({ sessionId: "s1", userId: "b", relation: "viewer", grantedBy: "a" });
      await people.grant({
        sessionId: "s1",
        userId: "b",
        relation: "collaborator",
        grantedBy: "a",
      });
      expect(await people.relation("s1", "b")).toBe("collaborator");
      expect(await people.sessionOwner("s1")).toBe("a");
      expect([...(await people.reachable("b")).entries()]).toEqual([["s1", "collaborator"]]);
      expect(await people.revokeAccess("s1", "a")).toBe(false);
      expect(await people.revokeAccess("s1", "b")).toBe(true);
      expect(await people.relation("s1", "b")).toBeUndefined();
      await people.forgetSession("s1");
      expect(await people.access("s1")).toEqual([]);
    });

    it("remembers a grant it stored, and never one a revocation raced", async () => {
      const created = await databases.store();
      const people = new PeopleStore(created.db, { cacheMs: 60_000 });
      await people.grant({ sessionId: "s2", userId: "a", relation: "owner", grantedBy: "a" });
      // the row removed behind the store's back: the answer comes from what the grant stored
      await created.db.client.$executeRawUnsafe(
        `DELETE FROM "session_access" WHERE "session_id" = 's2' AND "user_id" = 'a'`,
      );
      expect(await people.relation("s2", "a")).toBe("owner");
      // a revocation while a grant is on its way: the grant's value is not remembered
      const granting = people.grant({
        sessionId: "s2",
        userId: "b",
        relation: "collaborator",
        grantedBy: "a",
      });
      const revoking = people.revokeAccess("s2", "b");
      await granting;
      await revoking;
      expect(await people.relation("s2", "b")).toBeUndefined();
    });

    it("opens a link until it is revoked or expires", async () => {
      let now = new Date("2026-01-01T00:00:00Z");
      const people = await open(() => now);
      const made = await people.createLink({
        sessionId: "s",
        branchId: "b",
        hash: "l1",
        createdBy: "a",
        expiresAt: "2026-01-01T01:00:00.000Z",
      });
      expect((await people.openLink("l1"))?.id).toBe(made.id);
      now = new Date("2026-01-01T02:00:00Z");
      expect(await people.openLink("l1")).toBeUndefined();
      const forever = await people.createLink({
        sessionId: "s",
        branchId: "b",
        hash: "l2",
        createdBy: "a",
        expiresAt: null,
      });
      expect(await people.revokeLink("other-session", forever.id)).toBe(false);
      expect(await people.revokeLink("s", forever.id)).toBe(true);
      expect(await people.openLink("l2")).toBeUndefined();
    });

    it("counts failures in a window, concurrently, and starts a new window after it", async () => {
      const people = await open();
      await Promise.all(
        Array.from({ length: 8 }, () => people.fail(["address:1.2.3.4"], 60_000, 1_000)),
      );
      expect((await people.failures("address:1.2.3.4", 60_000, 2_000)).count).toBe(8);
      expect((await people.failures("address:1.2.3.4", 60_000, 2_000)).retryAfterMs).toBe(59_000);
      await people.fail(["address:1.2.3.4"], 60_000, 70_000);
      expect((await people.failures("address:1.2.3.4", 60_000, 70_001)).count).toBe(1);
      await people.clearFailures("address:1.2.3.4");
      expect((await people.failures("address:1.2.3.4", 60_000, 70_001)).count).toBe(0);
    });
  });
}
