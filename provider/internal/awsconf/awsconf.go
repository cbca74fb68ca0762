// Package awsconf finds the AWS configuration of a client of Amazon Bedrock, the same way for
// Claude through the Anthropic SDK and for the Converse API through the AWS SDK.
package awsconf

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
)

// BearerEnv is the variable the AWS SDKs read a Bedrock API key from.
const BearerEnv = "AWS_BEARER_TOKEN_BEDROCK"

// Settings are a provider's AWS settings.
type Settings struct {
	// AWS, when set, is the configuration to use instead of loading one.
	AWS *aws.Config
	// Region, when set, is the region, over the configuration's.
	Region string
	// Profile names the shared-configuration profile to load.
	Profile string
	// APIKey is a Bedrock API key, which authenticates requests without AWS credentials.
	APIKey string
}

// Load returns a copy of s.AWS or else the configuration config.LoadDefaultConfig finds
// (environment, shared files, SSO, web identity, container and instance roles) in s.Profile, with
// s.Region over its region. It fails when there is no region, or nothing to authenticate requests
// with: no API key, credentials, bearer token, nor $AWS_BEARER_TOKEN_BEDROCK. The errors start
// with prefix; regionField names the setting that gives the region. Failing here spares a client
// that would fail every request.
func Load(ctx context.Context, s Settings, prefix, regionField string) (aws.Config, error) {
	var c aws.Config
	if s.AWS != nil {
		c = s.AWS.Copy()
	} else {
		var load []func(*config.LoadOptions) error
		if s.Region != "" {
			load = append(load, config.WithRegion(s.Region))
		}
		if s.Profile != "" {
			load = append(load, config.WithSharedConfigProfile(s.Profile))
		}
		var err error
		if c, err = config.LoadDefaultConfig(ctx, load...); err != nil {
			return aws.Config{}, fmt.Errorf("%s: loading the AWS configuration: %w", prefix, err)
		}
	}
	if s.Region != "" {
		c.Region = s.Region
	}
	if c.Region == "" {
		return aws.Config{}, fmt.Errorf("%s: no AWS region: set %s or $AWS_REGION", prefix, regionField)
	}
	if s.APIKey == "" && c.Credentials == nil && c.BearerAuthTokenProvider == nil && os.Getenv(BearerEnv) == "" {
		return aws.Config{}, errors.New(prefix + ": the AWS configuration has no credentials")
	}
	return c, nil
}
