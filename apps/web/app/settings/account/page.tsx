import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { AccountView } from "@/components/account/account-view";
import { clientAddress } from "@/lib/server/people/admission";
import { getRuntime } from "@/lib/server/runtime";

export const metadata = { title: "Account · Arbor" };
export const dynamic = "force-dynamic";

/** Settings › Account: read from the database for the signed-in person (the gate let them in). */
export default async function AccountPage() {
  const requestHeaders = await headers();
  const runtime = await getRuntime();
  const { people } = runtime;
  const who = await people.authenticate(requestHeaders, clientAddress(requestHeaders));
  if (typeof who === "string") redirect("/login?next=%2Fsettings%2Faccount");
  const [methods, sessions, current] = await Promise.all([
    people.store.signInMethods(who.id),
    people.store.sessionsOf(who.id),
    people.auth.api.getSession({ headers: requestHeaders }).catch(() => null),
  ]);
  return (
    <AccountView
      person={{ name: who.name, email: who.email, role: who.role }}
      hasPassword={methods.password}
      sso={methods.sso}
      sessions={sessions.map((s) => ({
        id: s.id,
        createdAt: s.createdAt,
        userAgent: s.userAgent,
        ipAddress: s.ipAddress,
        current: s.id === current?.session.id,
      }))}
    />
  );
}
