package discovery

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/common/constant"
	dgext "dubbo.apache.org/dubbo-go/v3/common/extension"
	"dubbo.apache.org/dubbo-go/v3/metadata/info"
	"dubbo.apache.org/dubbo-go/v3/metadata/report"
	"github.com/dubbogo/gost/log/logger"

	// dubbo-go's ZooKeeper metadata report registers before it is wrapped.
	_ "dubbo.apache.org/dubbo-go/v3/metadata/report/zookeeper"

	dzk "github.com/dubboroute/dubboroute/directory/zookeeper"
	"github.com/dubboroute/dubboroute/extension/internal/zkclient"
)

// Application metadata, Java and Go.
//
// With application-level discovery and remote metadata, a consumer reads
// each provider instance's service list and parameters from the metadata
// report by (application, revision). Java Dubbo 3.3 keeps it in ZooKeeper
// at /dubbo/metadata/<app>/<revision>; dubbo-go v3.3.2 at
// /dubbo/<app>/<revision> (same JSON). Neither finds the other's, so a mixed
// fleet loses every instance of the other language (measured in
// TestDiscoveryMatrix: a Go consumer found none of the Java instances, a
// Java consumer none of the Go ones). With the extension a Go process also
// publishes to Java's node and also reads it when its own is missing.

func registerMetadataReport() {
	const name = "zookeeper"
	inner := dgext.GetMetadataReportFactory(name)
	if inner == nil {
		return
	}
	dgext.SetMetadataReportFactory(name, func() report.MetadataReportFactory { return javaMetadataFactory{inner: inner} })
}

type javaMetadataFactory struct{ inner report.MetadataReportFactory }

// CreateMetadataReport implements report.MetadataReportFactory.
func (f javaMetadataFactory) CreateMetadataReport(u *common.URL) report.MetadataReport {
	r := f.inner.CreateMetadataReport(u)
	if r == nil || u == nil {
		return r
	}
	root := u.GetParam(constant.MetadataReportGroupKey, "dubbo")
	root = "/" + strings.Trim(root, "/")
	return &javaMetadataReport{MetadataReport: r, url: u, root: root}
}

// javaMetadataReport is dubbo-go's ZooKeeper metadata report that also
// reads and writes application metadata at Java's node.
type javaMetadataReport struct {
	report.MetadataReport
	url  *common.URL
	root string // "/dubbo"
}

func (r *javaMetadataReport) javaPath(app, revision string) string {
	return r.root + "/metadata/" + app + "/" + revision
}

func (r *javaMetadataReport) client() (*dzk.Client, error) {
	key, opts := zkclient.Options(r.url)
	return zkclient.Client(r.url.Location, key+"metadata", opts...)
}

// GetAppMetadata implements report.MetadataReport: dubbo-go's node, else
// Java's.
func (r *javaMetadataReport) GetAppMetadata(app, revision string) (*info.MetadataInfo, error) {
	mi, err := r.MetadataReport.GetAppMetadata(app, revision)
	if err == nil {
		return mi, nil
	}
	c, cerr := r.client()
	if cerr != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	data, jerr := c.GetData(ctx, r.javaPath(app, revision))
	if jerr != nil {
		if errors.Is(jerr, dzk.ErrNotFound) {
			return nil, err
		}
		return nil, errors.Join(err, jerr)
	}
	var out info.MetadataInfo
	if uerr := json.Unmarshal(data, &out); uerr != nil {
		return nil, errors.Join(err, uerr)
	}
	return &out, nil
}

// PublishAppMetadata implements report.MetadataReport: dubbo-go's node and
// Java's, both with Java's service parameters.
func (r *javaMetadataReport) PublishAppMetadata(app, revision string, mi *info.MetadataInfo) error {
	mi = javaMetadata(mi) // the service parameters Java publishes (appmeta.go)
	if err := r.MetadataReport.PublishAppMetadata(app, revision, mi); err != nil {
		return err
	}
	data, err := json.Marshal(mi)
	if err != nil {
		return err
	}
	c, err := r.client()
	if err != nil {
		logger.Warnf("[dubboroute] metadata of %s revision %s not published for Java consumers: %v", app, revision, err)
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.PutData(ctx, r.javaPath(app, revision), data); err != nil {
		logger.Warnf("[dubboroute] metadata of %s revision %s not published for Java consumers: %v", app, revision, err)
	}
	return nil
}

// UnPublishAppMetadata implements report.MetadataReport: both nodes.
func (r *javaMetadataReport) UnPublishAppMetadata(app, revision string) error {
	err := r.MetadataReport.UnPublishAppMetadata(app, revision)
	if c, cerr := r.client(); cerr == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if derr := c.DeleteData(ctx, r.javaPath(app, revision)); derr != nil {
			logger.Warnf("[dubboroute] %v", derr)
		}
	}
	return err
}
