package io.github.dubboroute.it;

import org.apache.dubbo.registry.client.DefaultServiceInstance;
import org.apache.dubbo.registry.client.ServiceInstance;
import org.apache.dubbo.registry.client.ServiceInstanceCustomizer;
import org.apache.dubbo.rpc.model.ApplicationModel;

/**
 * The application-level counterpart of {@link RegisterHostCustomizer}: sets the host of the service instance a
 * Java provider registers (register mode {@code instance} or {@code all}, under {@code /services/<app>}) to the
 * system property {@value RegisterHostCustomizer#PROPERTY}; without the property it does nothing.
 *
 * <p>Dubbo's own {@code ServiceInstanceHostPortCustomizer} takes the host from the first exported URL, which is
 * the machine's non-loopback address; this one runs after it (lowest priority) so the instance carries the
 * loopback address the tests may use.
 */
public final class RegisterHostInstanceCustomizer implements ServiceInstanceCustomizer {
    @Override
    public void customize(ServiceInstance instance, ApplicationModel applicationModel) {
        String host = System.getProperty(RegisterHostCustomizer.PROPERTY);
        if (host == null || host.isBlank() || !(instance instanceof DefaultServiceInstance)) {
            return;
        }
        ((DefaultServiceInstance) instance).setHost(host.trim());
    }

    @Override
    public int getPriority() {
        return MIN_PRIORITY;
    }
}
