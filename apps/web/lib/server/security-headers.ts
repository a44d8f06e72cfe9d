// The headers every answer carries (pages, API, refusals, static files): a Content-Security-Policy
// whose scripts need this request's nonce (Next puts it on its own scripts, the layout on the
// theme script), no framing, no MIME sniffing, no referrer.

export function contentSecurityPolicy(nonce: string, dev = false): string {
  return [
    "default-src 'self'",
    // dev only: React's dev build evaluates strings for its call stacks
    `script-src 'self' 'nonce-${nonce}'${dev ? " 'unsafe-eval'" : ""}`,
    // style attributes (React Flow positions, widths) are inline styles
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

export function securityHeaders(nonce: string, dev = false): Record<string, string> {
  return {
    "content-security-policy": contentSecurityPolicy(nonce, dev),
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
  };
}
