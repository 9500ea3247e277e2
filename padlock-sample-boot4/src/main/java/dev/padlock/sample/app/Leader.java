package dev.padlock.sample.app;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.integration.leader.AbstractCandidate;
import org.springframework.integration.leader.Context;

/** This instance's candidacy for the role {@code sample-leader}; says when it leads. */
final class Leader extends AbstractCandidate {
    private static final Logger LOG = LoggerFactory.getLogger(Leader.class);

    Leader(String instance) {
        super(instance, "sample-leader");
    }

    @Override
    public void onGranted(Context context) {
        LOG.info("{} leads", getId());
    }

    @Override
    public void onRevoked(Context context) {
        LOG.info("{} no longer leads", getId());
    }
}
