// The web bench's bare baseline app (README.md). Type errors are checked by e2e's typecheck, not
// by every bench build.
export default {
  poweredByHeader: false,
  typescript: { ignoreBuildErrors: true },
};
