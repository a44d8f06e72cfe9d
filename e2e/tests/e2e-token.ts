/**
 * The install token of the two app servers playwright.config.ts starts. The flows' browser and
 * API requests send it as a Bearer (extraHTTPHeaders); home.spec.ts signs in as a person does,
 * with the page form and the cookie. A constant: the config is evaluated again in every worker.
 */
export const E2E_TOKEN = "arbor-e2e-token-0123456789abcdef";
