// A Collector for chunk-relay's tests: the OTLP receiver and an exporter that writes each
// profiles request it receives, as OTLP protobuf bytes, to a file of its own.
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/provider/fileprovider"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/exporter/xexporter"
	"go.opentelemetry.io/collector/otelcol"
	"go.opentelemetry.io/collector/pdata/pprofile"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/service/telemetry/otelconftelemetry"
)

type filesConfig struct {
	Directory string `mapstructure:"directory"`
}

type filesExporter struct {
	directory string
	written   atomic.Int64
}

func (e *filesExporter) Start(context.Context, component.Host) error {
	return os.MkdirAll(e.directory, 0o755)
}

func (e *filesExporter) Shutdown(context.Context) error { return nil }

func (e *filesExporter) Capabilities() consumer.Capabilities {
	return consumer.Capabilities{MutatesData: false}
}

// ConsumeProfiles writes to a temporary name and renames, so a reader never sees half a request.
func (e *filesExporter) ConsumeProfiles(_ context.Context, profiles pprofile.Profiles) error {
	marshaler := pprofile.ProtoMarshaler{}
	bytes, err := marshaler.MarshalProfiles(profiles)
	if err != nil {
		return err
	}
	name := fmt.Sprintf("request-%06d.pb", e.written.Add(1))
	partial := filepath.Join(e.directory, name+".partial")
	if err := os.WriteFile(partial, bytes, 0o644); err != nil {
		return err
	}
	return os.Rename(partial, filepath.Join(e.directory, name))
}

func newFilesExporterFactory() exporter.Factory {
	return xexporter.NewFactory(component.MustNewType("files"),
		func() component.Config { return &filesConfig{} },
		xexporter.WithProfiles(func(_ context.Context, _ exporter.Settings, cfg component.Config) (xexporter.Profiles, error) {
			return &filesExporter{directory: cfg.(*filesConfig).Directory}, nil
		}, component.StabilityLevelDevelopment))
}

func components() (otelcol.Factories, error) {
	receivers, err := otelcol.MakeFactoryMap[receiver.Factory](otlpreceiver.NewFactory())
	if err != nil {
		return otelcol.Factories{}, err
	}
	exporters, err := otelcol.MakeFactoryMap[exporter.Factory](newFilesExporterFactory())
	if err != nil {
		return otelcol.Factories{}, err
	}
	return otelcol.Factories{Receivers: receivers, Exporters: exporters, Telemetry: otelconftelemetry.NewFactory()}, nil
}

func main() {
	settings := otelcol.CollectorSettings{
		BuildInfo: component.BuildInfo{Command: "chunk-relay-otelcol", Description: "Collector for chunk-relay's tests", Version: "test"},
		Factories: components,
		ConfigProviderSettings: otelcol.ConfigProviderSettings{
			ResolverSettings: confmap.ResolverSettings{
				ProviderFactories: []confmap.ProviderFactory{fileprovider.NewFactory()},
				DefaultScheme:     "file",
			},
		},
	}
	if err := otelcol.NewCommand(settings).Execute(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
