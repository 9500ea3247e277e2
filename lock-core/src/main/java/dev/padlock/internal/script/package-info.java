/**
 * Running the lock-lua scripts: each script read once with its SHA1, sent by EVALSHA through one
 * runner that reloads on NOSCRIPT and names the script in its errors. Uses {@code redis}.
 */
@NullMarked
package dev.padlock.internal.script;

import org.jspecify.annotations.NullMarked;
