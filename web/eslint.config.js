import js from "@eslint/js";
import globals from "globals";
import reactHooks from "eslint-plugin-react-hooks";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist", "node_modules", "test-results", "playwright-report", "src/api/schema.d.ts"] },
  {
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    files: ["**/*.{ts,tsx,js,mjs}"],
    languageOptions: { ecmaVersion: 2023, globals: { ...globals.browser, ...globals.node } },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    // The app's React code; Playwright fixtures call a `use` that is not React's.
    files: ["src/**/*.{ts,tsx}"],
    plugins: { "react-hooks": reactHooks },
    rules: reactHooks.configs.recommended.rules,
  },
  {
    // Every request goes through src/api/ (docs/architecture.md, "Layers and the rules"): one place
    // knows the routes, the token and the error shape. Tests and their helpers may stub requests.
    files: ["src/**/*.{ts,tsx}"],
    ignores: ["src/api/**", "src/**/*.test.{ts,tsx}"],
    rules: {
      "no-restricted-globals": [
        "error",
        ...["fetch", "EventSource", "XMLHttpRequest", "WebSocket"].map((name) => ({
          name,
          message: "requests go through src/api/ (client.ts and its hooks)",
        })),
      ],
      "no-restricted-syntax": [
        "error",
        ...["Literal[value=/^\\/api(\\/|$)/]", "TemplateElement[value.raw=/^\\/api(\\/|$)/]"].map(
          (selector) => ({ selector, message: "a server route is written only in src/api/: add a function there" }),
        ),
      ],
    },
  },
);
