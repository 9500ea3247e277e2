package dev.padlock.internal.acquire;

import dev.padlock.internal.protocol.ProtocolContext;
import dev.padlock.internal.renewal.Watchdog;
import dev.padlock.internal.wakeup.WakeUps;
import io.netty.util.Timer;

/**
 * What an acquisition needs of its client beyond the protocol: where it parks for wake-ups, who
 * renews what it gets, who gives back claims whose reply was lost, the client's timer and its
 * command timeout.
 */
public interface AcquireContext extends ProtocolContext {

    WakeUps wakeUps();

    Watchdog watchdog();

    Abandonments abandonments();

    /** The client's one timer: watchdog rounds, wait timeouts, lease checks, give-back retries. */
    Timer timer();

    long commandTimeoutMillis();
}
