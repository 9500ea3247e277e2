/**
 * Small things every layer uses: argument checks that fail before anything reaches Redis, Redis
 * URI parsing and redaction, and the engine's one source of time. Uses nothing of the engine.
 */
package dev.padlock.internal.base;
