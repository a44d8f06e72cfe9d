// @arbor/ui: React components for the Arbor web app. Props in, callbacks out; no data fetching.
// What it takes from core comes from @arbor/core/browser only, so the browser bundle pulls no
// Node code (test/import-layers.test.ts).
// The app provides Tailwind 4, a highlight.js theme and "@xyflow/react/dist/style.css".
// Component files start with "use client" so Next server components can render them; the pure
// helpers (format, state-label, layout-branches, build-loop-tree, line-range) stay server-safe.

export * from "./admin/admin-sessions-table.js";
export * from "./admin/audit-log.js";
export * from "./admin/build-loop-tree.js";
export * from "./admin/loop-tree.js";
export * from "./approval-rules-settings.js";
export * from "./branches/branch-graph.js";
export * from "./branches/branch-notices.js";
export * from "./branches/branch-settings.js";
export * from "./branches/conflict-resolver.js";
export * from "./branches/layout-branches.js";
export * from "./branches/merge-dialog.js";
export * from "./branches/message-versions.js";
export * from "./composer.js";
export * from "./connection-indicator.js";
export { Drawer, type DrawerProps } from "./dialog.js";
export * from "./file-picker.js";
export * from "./file-view.js";
export * from "./format.js";
export * from "./help-sheet.js";
export * from "./instructions-in-use.js";
export * from "./line-range.js";
export * from "./mcp-servers.js";
export * from "./messages/attachment-card.js";
export * from "./messages/card-calls.js";
export * from "./messages/card-shell.js";
export * from "./messages/file-reference-card.js";
export * from "./messages/fold-card.js";
export * from "./messages/markdown.js";
export * from "./messages/message-card.js";
export * from "./messages/outgoing-card.js";
export * from "./messages/preview.js";
export * from "./messages/sub-agent-card.js";
export * from "./messages/system-control-card.js";
export type { SubAgentViews, ToolResults } from "./messages/tool-request-card.js";
export * from "./model-picker.js";
export * from "./openapi-specs.js";
export * from "./optimization-divider.js";
export * from "./optimization-settings.js";
export * from "./prompt-menu.js";
export * from "./sandbox-notice.js";
export * from "./session-export.js";
export * from "./session-list.js";
export * from "./session-menu.js";
export * from "./session-settings.js";
export * from "./share-dialog.js";
export * from "./shortcuts.js";
export * from "./skeleton.js";
export * from "./skills-agents.js";
export * from "./state-label.js";
export * from "./state-line.js";
export * from "./theme-toggle.js";
export * from "./toggletip.js";
export * from "./undo-toast.js";
export * from "./usage-meter.js";
export * from "./use-has-keyboard.js";
export * from "./view-switch.js";
export * from "./workspace-trust.js";
