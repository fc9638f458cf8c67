package lane

import (
	"os"

	"dubbo.apache.org/dubbo-go/v3/common/constant"
	"dubbo.apache.org/dubbo-go/v3/protocol/base"
	"github.com/dubbogo/gost/log/logger"

	"github.com/dubboroute/dubboroute/extension/internal/shared"
	"github.com/dubboroute/dubboroute/lanetrust"
)

// LaneIngress is a provider's trust boundary for lane attachments (see
// package lanetrust and LaneConfig.Ingress).
type LaneIngress = lanetrust.Policy

// LaneCaller is what a LaneIngress trust function knows of a caller.
type LaneCaller = lanetrust.Caller

// laneIngressFromEnv reads the ingress policy from the environment. A
// policy that does not parse fails closed: every caller is untrusted.
func laneIngressFromEnv() *lanetrust.Policy {
	p, err := lanetrust.FromEnv(os.LookupEnv)
	if err != nil {
		logger.Errorf("[dubboroute] lane ingress: %v; every caller of every service is untrusted until it is fixed", err)
		return &lanetrust.Policy{Services: []string{"*"}}
	}
	return p
}

// steerKeys are the lane keys an untrusted caller may not set: the tag, its
// force flag and the configured lane keys, but not the gray identity.
func (s *laneSettings) steerKeys(identity []string) []string {
	out := []string{constant.Tagkey, constant.ForceUseTag}
next:
	for _, k := range s.keys {
		for _, id := range identity {
			if k == id {
				continue next
			}
		}
		out = append(out, k)
	}
	return out
}

// guardLane enforces the ingress policy on a served call, after the triple
// keys are restored and before the lane is captured: the handler, and the
// calls it makes, see only what the policy lets through.
func guardLane(ivk base.Invoker, inv base.Invocation) {
	s := laneCfg.Load()
	p := s.cfg.Ingress
	if s.cfg.Off || !p.Active() || inv == nil {
		return
	}
	atts := inv.Attachments()
	c := lanetrust.Caller{Method: inv.MethodName(), Attachment: inv.GetAttachment}
	if ivk != nil {
		if u := ivk.GetURL(); u != nil {
			if u.SubURL != nil {
				// Exported through a registry: the registry URL holds the
				// service URL.
				u = u.SubURL
			}
			c.Service, c.Protocol = u.Service(), u.Protocol
		}
	}
	if c.Protocol == constant.Dubbo {
		// Set by dubbo-go's server from the connection (after decoding,
		// over whatever the caller sent).
		if ra, ok := atts[constant.RemoteAddr].(string); ok {
			c.RemoteAddr = ra
		}
	}
	identity := shared.GrayLB.RuleAttachmentKeys()
	out := p.Apply(c, lanetrust.Attachments(atts), s.steerKeys(identity), identity, shared.GrayLB.Options().DecisionKey)
	if len(out.Dropped) > 0 || out.DecisionRejected {
		logger.Debugf("[dubboroute] lane ingress %s.%s from %q: untrusted=%t dropped=%v decision rejected=%t",
			c.Service, c.Method, c.RemoteAddr, out.Untrusted, out.Dropped, out.DecisionRejected)
	}
}

// installDecisionSigner makes the gray balancer sign the decisions it
// stamps when the policy has a key.
func installDecisionSigner(p *lanetrust.Policy, off bool) {
	if off || p == nil || len(p.Key) == 0 {
		shared.GrayLB.SetDecisionSigner(nil)
		return
	}
	shared.GrayLB.SetDecisionSigner(func(inv base.Invocation, decision string) {
		inv.SetAttachment(lanetrust.SignatureKey, p.Sign(decision, shared.GrayLB.RuleAttachmentKeys(), inv.GetAttachment))
	})
}
