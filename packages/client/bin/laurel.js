#!/usr/bin/env node
// The `laurel` command: a file that exists before the build, so that npm links the bin when a
// checkout installs (dist/ is compiled afterwards, by the postinstall).
import '../dist/cli.js';
