package io.github.dubboroute.it;

import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.Logger;

/**
 * Routes Dubbo's logging to java.util.logging (stderr) at a chosen level, so stdout stays reserved
 * for the machine-readable lines the programs print. Must run before any Dubbo class logs.
 */
final class Logs {
    private Logs() {}

    static void init(String level) {
        // Not the "dubbo.application.logger" property: that would also be registered as a provider URL
        // parameter (logger=jdk), visible to routing rules.
        System.setProperty("java.util.logging.SimpleFormatter.format", "%1$tT %4$s %3$s: %5$s%6$s%n");
        // Dubbo's JdkLoggerAdapter prints "No such logging.properties ..." on first use (stdout in some paths):
        // trigger it now with stdout pointed at stderr, then configure java.util.logging ourselves.
        java.io.PrintStream stdout = System.out;
        System.setOut(System.err);
        try {
            org.apache.dubbo.common.logger.LoggerFactory.setLoggerAdapter(
                    new org.apache.dubbo.common.logger.jdk.JdkLoggerAdapter());
        } finally {
            System.setOut(stdout);
        }
        LogManager.getLogManager().reset();
        Logger root = Logger.getLogger("");
        Level l = Level.parse(level.toUpperCase());
        root.setLevel(l);
        Handler h = new java.util.logging.StreamHandler(System.err, new java.util.logging.SimpleFormatter()) {
            @Override
            public synchronized void publish(java.util.logging.LogRecord record) {
                super.publish(record);
                flush();
            }
        };
        h.setLevel(l);
        root.addHandler(h);
    }
}
