"""Sets up S3 on a fresh moto server started with INITIAL_NO_AUTH_ACTION_COUNT=4: the four
unauthenticated calls make a user, its key and a policy allowing S3; the buckets are then made
with that key (every later request must be signed with it). Prints "KEY SECRET".
Used by the tests (Tests/TestSupport/TestS3.swift) and Benchmarks/shared-cache.sh.
    python3 scripts/lib/s3-setup.py http://127.0.0.1:PORT BUCKET..."""
import json
import sys

import boto3

url, buckets = sys.argv[1], sys.argv[2:]
iam = boto3.client("iam", endpoint_url=url, region_name="us-east-1", aws_access_key_id="setup", aws_secret_access_key="setup")
iam.create_user(UserName="openmarket")
key = iam.create_access_key(UserName="openmarket")["AccessKey"]
policy = iam.create_policy(PolicyName="s3", PolicyDocument=json.dumps({"Version": "2012-10-17",
    "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}))
iam.attach_user_policy(UserName="openmarket", PolicyArn=policy["Policy"]["Arn"])
s3 = boto3.client("s3", endpoint_url=url, region_name="us-east-1",
                  aws_access_key_id=key["AccessKeyId"], aws_secret_access_key=key["SecretAccessKey"])
for bucket in buckets:
    s3.create_bucket(Bucket=bucket)
print(key["AccessKeyId"], key["SecretAccessKey"])
