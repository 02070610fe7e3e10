#!/usr/bin/env node
// The `annostore` command. Sources are TypeScript run through tsx, so a clone runs without a build step.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');
