/**
 * Running the lock-lua scripts: each script read once with its SHA1, sent through one runner that
 * names the script in its errors, by the route the configuration chose: EVALSHA, reloaded on
 * NOSCRIPT, or FCALL of a Redis Functions library generated from the same files, reloaded where a
 * function is missing. Uses {@code redis}.
 */
@NullMarked
package dev.padlock.internal.script;

import org.jspecify.annotations.NullMarked;
