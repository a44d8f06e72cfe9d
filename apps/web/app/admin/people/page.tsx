import { AdminPeopleView } from "@/components/admin/admin-people-view";

export const metadata = { title: "People · Arbor" };
export const dynamic = "force-dynamic";

/** Admin › People: everyone, their roles, access and budgets; invitations. */
export default function AdminPeoplePage() {
  return <AdminPeopleView />;
}
