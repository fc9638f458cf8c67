package io.github.dubboroute.lane;

import java.util.HashMap;
import java.util.Map;
import org.apache.dubbo.rpc.Invocation;
import org.apache.dubbo.rpc.PenetrateAttachmentSelector;
import org.apache.dubbo.rpc.RpcContextAttachment;

/**
 * Consumer side of the full-link lane: decides what a call made while serving one inherits from the served
 * call. Java's {@code ConsumerContextFilter} (a cluster filter: it runs before the router chain and the load
 * balancer) asks every {@code PenetrateAttachmentSelector}; without one it copies every attachment the served
 * call arrived with except {@code ContextFilter}'s internal keys, which include {@code dubbo.tag} and
 * {@code dubbo.force.tag} but not, say, a dubbo-go caller's {@code retries} or any application attachment.
 *
 * <p>With lanes on, a call inherits exactly the lane of the served call ({@link Lane#current()}, captured by
 * {@link LaneFilter}, tag included) and nothing else; attachments the application sets for the call
 * ({@code RpcContext.getClientAttachment()}) are added after this and win. With {@code dubboroute.lane=off} it
 * returns what Java would copy without it. Responses are left as Java handles them.
 */
public final class LaneAttachmentSelector implements PenetrateAttachmentSelector {
    @Override
    public Map<String, Object> select(
            Invocation invocation, RpcContextAttachment clientAttachment, RpcContextAttachment serverAttachment) {
        if (!Lane.enabled()) {
            return serverAttachment.getObjectAttachments();
        }
        return new HashMap<>(Lane.current());
    }

    @Override
    public Map<String, Object> selectReverse(
            Invocation invocation,
            RpcContextAttachment clientResponseContext,
            RpcContextAttachment serverResponseContext) {
        return clientResponseContext.getObjectAttachments();
    }
}
