/**
 * Small things every layer uses: argument checks that fail before anything reaches Redis, Redis
 * URI parsing and redaction, the engine's one source of time, and the check that Padlock's log
 * lines go somewhere. Uses nothing of the engine.
 */
@NullMarked
package dev.padlock.internal.base;

import org.jspecify.annotations.NullMarked;
