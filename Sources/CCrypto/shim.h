#ifndef OPENMARKET_CCRYPTO_SHIM_H
#define OPENMARKET_CCRYPTO_SHIM_H
/* OpenSSL's libcrypto from Debian (libssl-dev, which libcurl4-openssl-dev already needs):
   SHA-256 through the EVP interface. Nothing else lives in this module. */
#include <openssl/evp.h>
#endif
