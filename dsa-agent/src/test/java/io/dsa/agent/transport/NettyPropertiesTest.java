package io.dsa.agent.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link NettyProperties#forDsaProcess()}: Netty's JFR events off by default, a value on the command line kept. */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class NettyPropertiesTest {
    private String saved;

    @BeforeEach
    void save() { saved = System.getProperty(NettyProperties.JFR_EVENTS); }

    @AfterEach
    void restore() {
        if (saved == null) System.clearProperty(NettyProperties.JFR_EVENTS);
        else System.setProperty(NettyProperties.JFR_EVENTS, saved);
    }

    @Test
    void aProcessWithoutTheSettingTurnsNettysJfrEventsOff() {
        System.clearProperty(NettyProperties.JFR_EVENTS);
        NettyProperties.forDsaProcess();
        assertEquals("false", System.getProperty(NettyProperties.JFR_EVENTS));
    }

    @Test
    void aSettingOnTheCommandLineIsKept() {
        System.setProperty(NettyProperties.JFR_EVENTS, "true");
        NettyProperties.forDsaProcess();
        assertEquals("true", System.getProperty(NettyProperties.JFR_EVENTS));
    }
}
