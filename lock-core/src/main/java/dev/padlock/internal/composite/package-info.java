/**
 * Locks over other locks: {@code MultiLock} (all of them) and {@code RedLock} (a majority of
 * independent servers, with its validity time), over any {@link dev.padlock.RLock}; a multi lock of
 * plain locks of one client first tries one script call per server ({@code MultiBatch}). Uses
 * {@code observe}, {@code acquire} and below.
 */
@NullMarked
package dev.padlock.internal.composite;

import org.jspecify.annotations.NullMarked;
