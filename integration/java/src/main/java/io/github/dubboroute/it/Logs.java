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
        System.setProperty("dubbo.application.logger", "jdk");
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
        System.setProperty("java.util.logging.SimpleFormatter.format", "%1$tT %4$s %3$s: %5$s%6$s%n");
    }
}
