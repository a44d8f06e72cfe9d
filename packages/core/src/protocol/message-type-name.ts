import { z } from "zod";

// Small enums shared by the wire events and the message model, kept apart so protocol/ does not
// need the whole message model to describe an event.
export {
  MessageDeliverySchema,
  MessageRoleSchema,
  MessageStatusSchema,
} from "../model/message-types.js";

export const MessageTypeNameSchema = z.enum([
  "text",
  "file_reference",
  "tool_request",
  "tool_result",
  "mcp_resource",
  "attachment",
  "system_control",
  "plan",
  "question",
]);
