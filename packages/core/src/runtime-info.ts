import { type ApiProtocol, ApiProtocolSchema } from "./model/llm-config.js";

export interface RuntimeInfo {
  version: string;
  protocols: ApiProtocol[];
}

/** What this build of the runtime offers; shown by the app and used in health checks. */
export function runtimeInfo(): RuntimeInfo {
  return { version: "0.1.0", protocols: [...ApiProtocolSchema.options] };
}
