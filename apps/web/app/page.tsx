import { HomeView } from "@/components/home-view";
import { getRuntime } from "@/lib/server/runtime";
import { modelInfo } from "./model-info";

// Read the environment per request: the model shown is the one the running server uses.
export const dynamic = "force-dynamic";

export default async function HomePage() {
  const runtime = await getRuntime();
  // the environment with the keys kept in Settings › Model providers
  const model = modelInfo(runtime.providerKeys.modelEnv());
  return (
    <HomeView
      workspace={runtime.workspace}
      model={{
        name: model.name,
        protocol: model.protocol,
        offline: model.offline,
        ...(model.problem ? { problem: model.problem } : {}),
      }}
    />
  );
}
