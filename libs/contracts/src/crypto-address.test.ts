import { isAddressOf, isCryptoNetwork } from './crypto-address';

describe('isAddressOf', () => {
  it.each([
    ['USDT-TRC20', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t'],
    ['USDT-ERC20', '0xdAC17F958D2ee523a2206206994597C13D831ec7'],
    ['USDT-ERC20', '0xdac17f958d2ee523a2206206994597c13d831ec7'],
    ['ETH-ETH', '0xDAC17F958D2EE523A2206206994597C13D831EC7'],
    ['TON-TON', 'EQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqB2N'],
    ['USDT-TON', 'UQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqEBI'],
    ['TON-TON', `0:${'0123456789abcdef'.repeat(4)}`],
    ['BTC-BTC', 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq'],
    ['BTC-BTC', 'BC1QAR0SRRR7XFKVY5L643LYDNW9RE59GTZZWF5MDQ'],
    ['BTC-BTC', 'bc1p5d7rjq7g6rdk2yhzks9smlaqtedr4dekq08ge8ztwac72sfr9rusxg3297'],
    ['BTC-BTC', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa'],
    ['BTC-BTC', '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy'],
  ] as const)('accepts %s %s', (network, address) => {
    expect(isAddressOf(network, address)).toBe(true);
  });

  it.each([
    // A changed character breaks the base58check checksum.
    ['USDT-TRC20', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u'],
    // A valid base58check of another version (Bitcoin's) is not TRON.
    ['USDT-TRC20', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa'],
    // Mixed case that is not the EIP-55 checksum.
    ['USDT-ERC20', '0xdAC17F958D2ee523a2206206994597C13D831eC7'],
    ['ETH-ETH', '0xdac17f958d2ee523a2206206994597c13d831ec'],
    ['ETH-ETH', 'dac17f958d2ee523a2206206994597c13d831ec7'],
    // A TON address with its CRC16 off by one, another length, or a workchain the raw form does not take.
    ['TON-TON', 'EQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqB2M'],
    ['TON-TON', 'EQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqB2'],
    ['TON-TON', `1:${'ab'.repeat(32)}`],
    // A bech32 error, testnet, a v1 program with the v0 checksum (BIP-350), mixed case.
    ['BTC-BTC', 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdr'],
    ['BTC-BTC', 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx'],
    ['BTC-BTC', 'bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7k7grplx'],
    ['BTC-BTC', 'bc1qAr0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq'],
    ['BTC-BTC', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t'],
    ['BTC-BTC', ''],
  ] as const)('refuses %s %s', (network, address) => {
    expect(isAddressOf(network, address)).toBe(false);
  });

  it.each([
    // Well-known unspendable addresses: well formed, checksum and all, but money sent there is gone.
    ['USDT-ERC20', '0x0000000000000000000000000000000000000000'],
    ['ETH-ETH', '0x000000000000000000000000000000000000dEaD'],
    ['ETH-ETH', '0x000000000000000000000000000000000000dead'],
    ['ETH-ETH', '0xdEAD000000000000000042069420694206942069'],
    ['USDT-TRC20', 'T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb'],
    ['USDT-TRC20', 'T9yD14Nj9j7xAB4dbGeiX9h8upfCg3PBbY'],
    ['BTC-BTC', '1111111111111111111114oLvT2'],
    ['BTC-BTC', '31h1vYVSYuKP6AhS86fbRdMw9XHieotbST'],
    ['BTC-BTC', 'bc1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq9e75rs'],
    ['TON-TON', 'EQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAM9c'],
    ['USDT-TON', `0:${'0'.repeat(64)}`],
  ] as const)('refuses the unspendable %s %s', (network, address) => {
    expect(isAddressOf(network, address)).toBe(false);
  });

  it('judges a destination only for the crypto networks', () => {
    expect(isCryptoNetwork('USDT-TRC20')).toBe(true);
    expect(isCryptoNetwork('SBP')).toBe(false);
    expect(isCryptoNetwork(null)).toBe(false);
  });
});
