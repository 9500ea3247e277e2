package dev.padlock.internal.grant;

import dev.padlock.internal.protocol.GrantKind;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Routes the messages of this client's grant channels: a fair, read or write lock's grant to its
 * {@link GrantWaits}, a plain lock's to the client's local queues (given as {@code plainGrants},
 * since the queues sit above this package), a malformed one nowhere (logged).
 */
public final class GrantRouter implements Consumer<String> {
    private static final Logger log = LoggerFactory.getLogger(GrantRouter.class);

    private final GrantWaits grantWaits;
    private final Consumer<GrantMessage> plainGrants;

    public GrantRouter(GrantWaits grantWaits, Consumer<GrantMessage> plainGrants) {
        this.grantWaits = grantWaits;
        this.plainGrants = plainGrants;
    }

    @Override
    public void accept(String text) {
        GrantMessage message = GrantMessage.parse(text);
        if (message == null) {
            log.warn("ignoring a malformed grant message '{}'", text);
        } else if (message.kind() != GrantKind.PLAIN) {
            grantWaits.onGranted(message);
        } else {
            plainGrants.accept(message);
        }
    }
}
