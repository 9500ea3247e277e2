/** The Lua scripts called directly, reply by reply, and what each acquisition costs in Redis commands. */
package dev.padlock.tests.scripts;
