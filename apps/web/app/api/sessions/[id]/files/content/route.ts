import { FileContentQuerySchema, type FileContentResponse } from "@arbor/core";
import {
  badRequest,
  HttpError,
  handle,
  json,
  loadSession,
  notFound,
  validate,
} from "@/lib/server/http";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Context = { params: Promise<{ id: string }> };

/** The file view: ?path=relative/file of the session's workspace. */
export const GET = handle(
  "GET /api/sessions/{id}/files/content",
  async (request, context: Context) => {
    const { id } = await context.params;
    const query = validate(FileContentQuerySchema, {
      path: new URL(request.url).searchParams.get("path") ?? undefined,
    });
    const app = await getRuntime();
    await loadSession(app, id);
    const file = await app.readFile(query.path);
    if (!file.ok) {
      throw new HttpError(
        file.reason === "not_found" || file.reason === "not_a_file"
          ? notFound(file.message)
          : badRequest([{ field: "path", message: file.message }]),
      );
    }
    const body: FileContentResponse = {
      path: file.path,
      content: file.content,
      total_lines: file.total_lines,
      truncated: file.truncated,
    };
    return json(body);
  },
);
