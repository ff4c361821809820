// Lint rules: type-aware checks everywhere; fences that keep src/core and src/app pure, and the kernel
// layer (src/linux), the pod runtime (src/runtime) and the node daemon (src/daemon) below the frontends.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: [
      "dist/**",
      "node_modules/**",
      "bin/**",
      "scripts/**",
      "examples/**/*.mjs",
      "test/fixtures/**",
      "eslint.config.js",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/consistent-type-imports": "error",
      // node:test's test()/describe() return promises the runner itself awaits.
      "@typescript-eslint/no-floating-promises": [
        "error",
        {
          allowForKnownSafeCalls: [
            { from: "package", package: "node:test", name: ["test", "describe", "it", "suite"] },
          ],
        },
      ],
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    // The engine is pure: no Node APIs, no adapters, no frontends, no clock, no globals.
    files: ["src/core/**/*.ts"],
    ignores: ["src/core/**/*.test.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["node:*", "fs", "path", "os", "child_process", "process"],
              message: "src/core is pure: no I/O.",
            },
            {
              group: [
                "**/app/**",
                "**/cli/**",
                "**/daemon/**",
                "**/formats/**",
                "**/linux/**",
                "**/runtime/**",
                "**/kubernetes/**",
                "**/server/**",
                "**/fleet/**",
                "**/prometheus/**",
                "**/errors.js",
              ],
              message: "src/core imports only src/core.",
            },
            { group: ["yaml", "commander"], message: "src/core takes parsed data, not files or argv." },
          ],
        },
      ],
      "no-restricted-globals": [
        "error",
        { name: "process", message: "src/core is pure." },
        { name: "console", message: "src/core reports; it does not log." },
      ],
      "no-restricted-properties": [
        "error",
        { object: "Date", property: "now", message: "Time is an input to the engine." },
        { object: "Math", property: "random", message: "The engine is deterministic." },
      ],
    },
  },
  {
    // The kernel layer knows nothing of the pod runtime or the frontends (runtime → linux is the
    // only sideways edge), and the runtime knows nothing of the frontends.
    files: ["src/linux/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["**/runtime/**", "**/kubernetes/**", "**/server/**", "**/cli/**", "**/daemon/**"],
              message: "src/linux is the kernel layer: it imports core, app ports, formats and linux only.",
            },
          ],
        },
      ],
    },
  },
  {
    files: ["src/runtime/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["**/kubernetes/**", "**/server/**", "**/cli/**", "**/daemon/**"],
              message:
                "src/runtime runs pods for the daemon: it imports core, app ports, formats and linux only.",
            },
          ],
        },
      ],
    },
  },
  {
    // The node daemon's parts below its command (the loop thread, the V8 tuning) stand on the
    // adapters (runtime, linux, server, formats) and app, and under the CLI, which alone imports
    // them.
    files: ["src/daemon/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["**/cli/**"],
              message: "src/daemon is below the CLI: the CLI wires it, it does not import the CLI.",
            },
            {
              group: ["**/kubernetes/**", "**/fleet/**", "**/prometheus/**"],
              message:
                "src/daemon runs one node: it imports core, app, errors, formats, linux, runtime, server and daemon only.",
            },
            { group: ["commander"], message: "src/daemon takes parsed options: argv is the CLI's." },
          ],
        },
      ],
    },
  },
  {
    // The use cases are pure too: they own the ports and drive them; adapters and frontends
    // implement or call them, never the other way round. src/errors.ts is shared by all layers.
    files: ["src/app/**/*.ts"],
    ignores: ["src/app/**/*.test.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["node:*", "fs", "path", "os", "child_process", "process"],
              message: "src/app is pure: I/O goes through its ports.",
            },
            {
              group: [
                "**/cli/**",
                "**/daemon/**",
                "**/formats/**",
                "**/linux/**",
                "**/runtime/**",
                "**/kubernetes/**",
                "**/server/**",
                "**/fleet/**",
                "**/prometheus/**",
              ],
              message: "src/app imports only src/core, src/app and src/errors.ts.",
            },
            {
              group: ["yaml", "commander", "pino", "@kubernetes/*"],
              message: "src/app takes parsed data through its ports.",
            },
          ],
        },
      ],
    },
  },
  {
    // The other adapters (input formats, the API client, the HTTP surface) stand beside the kernel
    // layer and the runtime, not on them, and never reach up into the CLI.
    files: ["src/formats/**/*.ts", "src/kubernetes/**/*.ts", "src/server/**/*.ts"],
    ignores: ["src/**/*.test.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["**/cli/**", "**/daemon/**", "**/linux/**", "**/runtime/**"],
              message: "formats, kubernetes and server import core, app, errors and formats only.",
            },
          ],
        },
      ],
    },
  },
  {
    // The fleet comparison's adapters (worker pool, plan and shard files) read traces through
    // formats and replay them through app; they run no pods, touch no kernel and serve nothing.
    files: ["src/fleet/**/*.ts"],
    ignores: ["src/**/*.test.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: [
                "**/cli/**",
                "**/daemon/**",
                "**/linux/**",
                "**/runtime/**",
                "**/kubernetes/**",
                "**/server/**",
              ],
              message: "src/fleet imports core, app, errors, formats and fleet only.",
            },
          ],
        },
      ],
    },
  },
  {
    // The Prometheus client implements the import's port over HTTP; it stands beside the other
    // adapters and reaches into none of them, nor up into the CLI.
    files: ["src/prometheus/**/*.ts"],
    ignores: ["src/**/*.test.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: [
                "**/cli/**",
                "**/daemon/**",
                "**/linux/**",
                "**/runtime/**",
                "**/kubernetes/**",
                "**/server/**",
                "**/fleet/**",
              ],
              message: "src/prometheus imports core, app, errors, formats and prometheus only.",
            },
          ],
        },
      ],
    },
  },
);
