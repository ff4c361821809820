#!/usr/bin/env node
// The command line, bundled by scripts/bundle-cli.mjs (see there for why).
import { main } from "../dist/cli/main.js";
process.exitCode = await main(process.argv.slice(2));
