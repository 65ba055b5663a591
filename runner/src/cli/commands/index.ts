import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { register as init } from './init.js';
import { register as serve } from './serve.js';
import { register as keys } from './keys.js';
import { register as clients } from './clients.js';
import { register as ingest } from './ingest.js';
import { register as sentiment } from './sentiment.js';
import { register as connect } from './connect.js';
import { register as sync } from './sync.js';
import { register as demo } from './demo.js';
import { register as notify } from './notify.js';
import { register as profile } from './profile.js';
import { register as secrets } from './secrets.js';

/** A CLI command module: adds its command(s) to the program. */
export type RegisterCommand = (program: Command, ctx: CliContext) => void;

/** Every command, registered in this order. Add a command by adding its module here. */
export const commands: RegisterCommand[] = [init, serve, keys, clients, ingest, sentiment, connect, demo, sync, notify, profile, secrets];
